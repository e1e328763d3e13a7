#!/usr/bin/env bash
# Publish two lines on a topic under DEV.BASE.TOPIC (dev/), as the container's docs do with amqspubc.
set -u
printf 'extra\nedition\n' | amqspubc dev/news QM1
echo "amqspubc exit $?"
