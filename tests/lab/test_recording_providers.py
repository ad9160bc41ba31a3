"""Tests of lab.recorder.providers: defaults, overrides, public URLs and errors."""

from __future__ import annotations

import pytest

from harness.errors import ConfigError
from lab.recorder import PROVIDERS, provider_spec
from lab.recorder.providers import is_loopback_url, public_url


def test_deepseek_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEEPSEEK_BASE_URL", raising=False)
    spec = provider_spec("deepseek")
    assert spec.name == "deepseek" and spec.model == "deepseek-flash"
    assert spec.base_url == spec.public_base_url == "https://api.deepseek.com"
    assert spec.api_key_env == "DEEPSEEK_API_KEY"
    assert spec.params == {"temperature": 0, "thinking": {"type": "disabled"}}


def test_deepseek_base_url_from_the_environment_is_not_stored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEEPSEEK_BASE_URL", "http://127.0.0.1:8011/")
    spec = provider_spec("deepseek", model="deepseek-pro", api_key_env="MY_KEY")
    assert spec.base_url == "http://127.0.0.1:8011"
    assert spec.public_base_url == "https://api.deepseek.com"
    assert (spec.model, spec.api_key_env) == ("deepseek-pro", "MY_KEY")
    assert provider_spec("deepseek", base_url="https://proxy.test").base_url == "https://proxy.test"


def test_local_defaults() -> None:
    spec = provider_spec("local", base_url="http://127.0.0.1:40123/v1/")
    assert spec.model == "qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert spec.base_url == "http://127.0.0.1:40123/v1"
    assert spec.public_base_url == "http://localhost/v1"
    assert spec.api_key_env is None
    assert spec.params == {"temperature": 0, "seed": 42}
    assert provider_spec("local", model="q", base_url="http://127.0.0.1:1/v1").model == "q"


def test_local_needs_the_server_url() -> None:
    with pytest.raises(ConfigError, match="base URL"):
        provider_spec("local")


def test_openai_compatible() -> None:
    spec = provider_spec("openai-compatible", model="m", base_url="http://127.0.0.1:8080/v1")
    assert spec.public_base_url == "http://localhost/v1"
    assert spec.api_key_env is None  # a server on this machine needs no key
    assert spec.params == {"temperature": 0}
    remote = provider_spec(
        "openai-compatible", model="m", base_url="https://llm.example.org:8443/v1/", api_key_env="K"
    )
    assert remote.base_url == remote.public_base_url == "https://llm.example.org:8443/v1"
    unnamed = provider_spec("openai-compatible", model="m", base_url="https://llm.example.org/v1")
    assert unnamed.api_key_env == "OPENAI_API_KEY"
    assert remote.api_key_env == "K"


@pytest.mark.parametrize(
    ("model", "base_url", "missing"),
    [("m", None, "--base-url"), (None, "http://h/v1", "--model"), (None, None, "--base-url and")],
)
def test_openai_compatible_needs_url_and_model(
    model: str | None, base_url: str | None, missing: str
) -> None:
    with pytest.raises(ConfigError, match=missing):
        provider_spec("openai-compatible", model=model, base_url=base_url)


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as info:
        provider_spec("openai")
    assert "'openai'" in str(info.value)
    assert all(name in str(info.value) for name in PROVIDERS)


def test_specs_do_not_share_params() -> None:
    first = provider_spec("deepseek")
    first.params["thinking"]["type"] = "enabled"  # type: ignore[index]
    assert provider_spec("deepseek").params["thinking"] == {"type": "disabled"}


@pytest.mark.parametrize(
    ("url", "public"),
    [
        ("http://127.0.0.1:8011/v1", "http://localhost/v1"),
        ("http://localhost:8011/v1/", "http://localhost/v1"),
        ("http://[::1]:9000/v1", "http://localhost/v1"),
        ("http://127.1.2.3/x", "http://localhost/x"),
        ("https://user:secret@llm.example.org/v1", "https://llm.example.org/v1"),
        ("http://[2001:db8::1]:81/v1", "http://[2001:db8::1]:81/v1"),
        ("https://api.deepseek.com", "https://api.deepseek.com"),
    ],
)
def test_public_url(url: str, public: str) -> None:
    assert public_url(url) == public


def test_is_loopback_url() -> None:
    assert is_loopback_url("http://127.0.0.1:1/v1") and is_loopback_url("http://localhost/v1")
    assert not is_loopback_url("https://api.deepseek.com")
