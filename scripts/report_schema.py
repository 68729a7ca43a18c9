#!/usr/bin/env python3
"""Validate labs' --json reports against docs/schema/lab-report.schema.json (cudalab.report_schema):

  scripts/report_schema.py FILE.json ...
  scripts/report_schema.py --run [--launcher CMD] -- LAB ARGS...
"""
import sys

from cudalab import report_schema

if __name__ == "__main__":
    sys.exit(report_schema.main())
