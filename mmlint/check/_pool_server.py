"""Imported only inside the fork server that mmlint.check.workers starts (as one of
its preloaded modules), never by mmlint itself: importing it ties the server's
life to its parent's.

The server outlives a parent killed outright: it waits for every worker to
close its copy of a pipe before it leaves, and the workers wait for it. On
Linux the kernel now kills the server with its parent, and each worker (which
asks the same of the server, its own parent) with the server."""

from mmlint.check.workers import die_with_parent_on_linux

die_with_parent_on_linux()
