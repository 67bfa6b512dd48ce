from nastune.cli import app

app()
