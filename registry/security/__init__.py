"""Who may do what: authority records, CHLAUTH, and the checks MQI verbs and PCF commands make."""
