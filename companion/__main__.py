from companion.serving.cli import main

raise SystemExit(main())
