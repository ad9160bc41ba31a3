"""What the tests share: loopback servers, scripted models, sessions, report inputs and the
checkout's paths (``tests`` is on pytest's ``pythonpath``: ``from support.loopback import …``)."""
