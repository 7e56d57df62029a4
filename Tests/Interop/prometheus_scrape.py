"""Scrapes a hub's /metrics and parses it with Prometheus's own Python client parser.

Usage: prometheus_scrape.py URL
Prints one JSON object: {"content_type": ..., "samples": [{"family", "type", "name", "labels", "value"}]}.
Exits non-zero (with the parser's error) when the text is not valid Prometheus exposition.
"""
import json
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

url = sys.argv[1]
with urllib.request.urlopen(url, timeout=10) as response:
    content_type = response.headers.get("Content-Type", "")
    text = response.read().decode("utf-8")

samples = []
for family in text_string_to_metric_families(text):
    for sample in family.samples:
        samples.append({
            "family": family.name,
            "type": family.type,
            "name": sample.name,
            "labels": sample.labels,
            "value": sample.value,
        })
print(json.dumps({"content_type": content_type, "samples": samples}))
