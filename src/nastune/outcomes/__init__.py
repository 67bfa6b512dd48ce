"""Each workflow's result, defined once: the job fills it, the console views and the HTML report
read it, and its `summary()` is what `--json` prints and the run's JSON file holds (`wire`).
It sits below the report and above what it is made of (verdict rows, results, plans, findings),
as ansible-lint's results are one model its formatters all read."""
