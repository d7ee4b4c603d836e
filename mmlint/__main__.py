from mmlint.cli.process import entry

entry()
