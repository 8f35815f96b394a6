"""``python -m qarena`` runs the command line."""

from qarena.cli.app import main

main()
