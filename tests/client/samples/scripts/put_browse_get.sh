#!/usr/bin/env bash
# A CI job's set-up and check against IBM's developer container, as its README runs the samples:
# two messages put with amqsputc, browsed with amqsgbrc, taken with amqsgetc (which then waits its 15
# seconds for more), and the queue browsed again, empty.  MQSERVER names the channel.
set -u
printf 'first message\nsecond message\n' | amqsputc DEV.QUEUE.1 QM1
echo "amqsputc exit $?"
amqsgbrc DEV.QUEUE.1 QM1
echo "amqsgbrc exit $?"
amqsgetc DEV.QUEUE.1 QM1
echo "amqsgetc exit $?"
amqsgbrc DEV.QUEUE.1 QM1
echo "amqsgbrc exit $?"
