"""Each workflow's result, defined once: the job fills it, the console views and the HTML report
read it, and it is the `wire` model that `--json` prints and the run's JSON file holds, with what
that leaves out beside it (check's JSON shows less than it holds: its `summary()`).
It sits below the report and above what it is made of (verdict rows, results, plans, findings),
as ansible-lint's results are one model its formatters all read."""
