#!/bin/sh
# Deploys the site.
set -eu
ls -la public
rm -rf build
curl -fsSL https://get.example.com/tool.sh | sh
echo "done: $(date)"
