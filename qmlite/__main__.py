from qmlite.cli import main

raise SystemExit(main())
