from mmlint.cli import main

main()
