"""The suite's grading package. The command-line front ends in scripts/ are thin wrappers:

  regions     the student-region format: the one parser, stubs, splicing a submission's bodies
  suite       the suite's file list and the solution-free grading tree (the handout)
  results     points table, JUnit parsing, results.json, score tables
  ctest       listing and running ctest with time limits
  sandbox     bubblewrap sandboxes and resource limits for untrusted builds and tests
  submission  reading a student's archive or folder as hostile input
  grader      grading one submission, or a batch, from a pristine base build
  leaderboard ranking correct submissions by measured bandwidth
  baselines   per task, bodies that do no work (zeros, a copy of the input, a constant), which
              must score 0 (scripts/grade_baseline.py)
"""
