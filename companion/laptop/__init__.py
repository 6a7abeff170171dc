"""The laptop the app runs on, as the host's pages and the command line need to know it:
its network addresses ranked for phones (``addresses``), why phones may not reach it
(``doctor``), and the process's own limits (``limits``). No Flask, no database."""
