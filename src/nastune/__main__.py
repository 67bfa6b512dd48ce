from nastune.cli import main

main()
