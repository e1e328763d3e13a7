// The `mqtt` npm package's client against qmlite: subscribe to dev/node/# at QoS 2, publish to
// itself at QoS 0, 1 and 2, print what arrived as one JSON line and exit 0.
//   node roundtrip.js PORT CLIENT_ID
const mqtt = require("mqtt");
const [port, clientId] = process.argv.slice(2);
const client = mqtt.connect({ host: "127.0.0.1", port: Number(port), clientId, clean: true, protocolVersion: 4,
                              reconnectPeriod: 0, connectTimeout: 20000 });
const got = [];
const fail = (why) => { console.error(String(why)); process.exit(1); };
setTimeout(() => fail("timed out"), 20000).unref();
client.on("error", fail);
client.on("message", (topic, payload, packet) => {
  got.push({ topic, payload: payload.toString(), qos: packet.qos });
  if (got.length === 3) {
    console.log(JSON.stringify(got));
    client.end(false, () => process.exit(0));
  }
});
client.on("connect", () => {
  client.subscribe("dev/node/#", { qos: 2 }, (err, granted) => {
    if (err) fail(err);
    if (granted[0].qos !== 2) fail("granted " + granted[0].qos);
    for (const qos of [0, 1, 2]) {
      client.publish(`dev/node/q${qos}`, `m${qos}`, { qos }, (e) => { if (e) fail(e); });
    }
  });
});
