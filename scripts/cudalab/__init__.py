"""The suite's scripts as one package. The command-line entry points are the files in scripts/
(grade.py, grade_submission.py, bench.py, plot.py, profile.py, report_schema.py, ...): each is a
thin front end that imports what it needs from here, and Python puts scripts/ on its path when one
of them runs, so none of them changes sys.path.

  cudalab.script_cli     the command-line plumbing (one-line usage errors, exit codes)
  cudalab.lab_manifest   labs/manifest.json, the one list of the labs
  cudalab.report_schema  the labs' --json reports against docs/schema/lab-report.schema.json
  cudalab.nsight         scripts/profile.py --json reports, read back (plot.py's measured bytes)
  cudalab.labgrade       the grader: regions, submissions, sandbox, ctest, results, leaderboard
"""
