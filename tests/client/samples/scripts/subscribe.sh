#!/usr/bin/env bash
# Subscribe and print what is published until 30 seconds pass with nothing.
set -u
amqssubc dev/news QM1
echo "amqssubc exit $?"
