"""The browser front end of ``mancala serve``: play, analyse and replay games (the ``web`` extra:
Starlette and uvicorn). :func:`mancala_envs.web.app.create_app` builds the app; the guide is
``docs/play-and-analyse.md``."""
