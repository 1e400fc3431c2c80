"""``hollywood play``: Hollywood Gin against any agent in the browser, with game logs.

* :mod:`.game` -- one match of a person against an agent, held by the server, and the person's
  view of it (nothing hidden ever in it);
* :mod:`.store` -- the matches on disk (one JSON game log per match, rewritten after every move:
  a match survives closing the page and restarting the server);
* :mod:`.gamelog` -- reading logs: ``hollywood replay LOG``, ``hollywood play-results DIR``
  (the person's results per opponent with 95% intervals), a ``MatchRecord`` for the notebook;
* :mod:`.server` -- the Starlette app and its JSON API; ``static/`` the page (plain HTML, CSS
  and JavaScript, served by the package: nothing is fetched from the internet);
* :mod:`.commands` -- the three subcommands.

The web server needs the ``play`` extra (``pip install -e '.[play]'``); the rest does not.
"""
