from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]


def load_settings(**env: str) -> subprocess.CompletedProcess[str]:
    """Import the settings in a fresh interpreter with exactly this environment."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DEBUG",
            "SECRET_KEY",
            "DATABASE_URL",
            "REDIS_URL",
            "ALLOWED_HOSTS",
            "CONN_MAX_AGE",
            "EVALSITE_CHANNEL_LAYER",
            "EVALSITE_INSTANCE_PREFIX",
        }
    }
    clean.update(env)
    code = (
        "import json, evalsite.settings as s; "
        "print(json.dumps({'layer': s.CHANNEL_LAYERS['default']['BACKEND'], "
        "'engine': s.DATABASES['default']['ENGINE'], "
        "'options': s.DATABASES['default'].get('OPTIONS', {}), "
        "'conn_max_age': s.DATABASES['default']['CONN_MAX_AGE'], "
        "'tz': s.TIME_ZONE, 'hosts': s.ALLOWED_HOSTS, "
        "'layer_prefix': s.CHANNEL_LAYERS['default'].get('CONFIG', {}).get('prefix'), "
        "'cache_prefix': getattr(s, 'CACHES', {}).get('default', {}).get('KEY_PREFIX')}))"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True
    )


def test_it_requires_a_secret_key_without_debug() -> None:
    result = load_settings(DEBUG="0")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "SECRET_KEY" in result.stderr


def test_it_rejects_a_bad_database_url() -> None:
    result = load_settings(DEBUG="1", DATABASE_URL="mysql-ish://nowhere")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "DATABASE_URL" in result.stderr


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEBUG", "maybe"),
        ("CONN_MAX_AGE", "soon"),
        ("EVALSITE_ENDPOINT_PRIVATE_NETWORKS", "127.0.0.1/32,intranet"),
        ("EVALSITE_PEOPLE_CSV_MAX_ROWS", "0"),
    ],
)
def test_it_rejects_malformed_values(name: str, value: str) -> None:
    env = {"DEBUG": "1", name: value}
    result = load_settings(**env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and name in result.stderr


def test_it_defaults_to_sqlite_wal_and_the_in_memory_layer() -> None:
    import json

    result = load_settings(DEBUG="1")
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert values["engine"] == "django.db.backends.sqlite3"
    assert values["options"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in values["options"]["init_command"]
    assert values["options"]["timeout"] >= 20
    assert values["conn_max_age"] > 0
    assert values["layer"] == "channels.layers.InMemoryChannelLayer"
    assert values["tz"] == "Asia/Shanghai"


def test_redis_url_switches_the_channel_layer_and_secret_key_allows_debug_off() -> None:
    import json

    result = load_settings(
        DEBUG="0",
        SECRET_KEY="x" * 50,
        ALLOWED_HOSTS="eval.example.org",
        REDIS_URL="redis://127.0.0.1:6379/0",
        DATABASE_URL="postgres://u@db.example.org:5432/evalsite",
    )
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert values["layer"] == "evalsite.channel_layer.ResubscribingPubSubLayer"
    assert values["engine"] == "django.db.backends.postgresql"
    assert values["hosts"] == ["eval.example.org"]


@pytest.mark.parametrize(
    ("choice", "layer"),
    [
        ("pubsub", "evalsite.channel_layer.ResubscribingPubSubLayer"),
        ("lists", "channels_redis.core.RedisChannelLayer"),
        ("kafka", None),
    ],
)
def test_the_redis_channel_layer_can_be_chosen(choice: str, layer: str | None) -> None:
    import json

    result = load_settings(
        DEBUG="1", REDIS_URL="redis://127.0.0.1:6379/0", EVALSITE_CHANNEL_LAYER=choice
    )
    if layer is None:
        assert result.returncode != 0
        assert "EVALSITE_CHANNEL_LAYER" in result.stderr
        return
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["layer"] == layer


def test_check_deploy_reports_no_errors() -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "DATABASE_URL"}}
    env.update(
        DEBUG="0",
        SECRET_KEY="a-long-random-production-secret-key-0123456789-abcdefghijklmnop",
        ALLOWED_HOSTS="eval.example.org",
        SECURE_HSTS_SECONDS="31536000",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "ERROR"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def prefix_of(**env: str) -> tuple[str, str]:
    code_env = {"DEBUG": "1", **env}
    result = load_settings(**code_env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["layer_prefix"], json.loads(result.stdout)["cache_prefix"]


def test_the_instance_prefix_is_the_redis_database_number_unless_it_is_set() -> None:
    assert prefix_of(REDIS_URL="redis://127.0.0.1:6379/3") == ("evalsite.3", "evalsite.3")
    assert prefix_of(REDIS_URL="redis://127.0.0.1:6379") == ("evalsite.0", "evalsite.0")
    chosen = prefix_of(REDIS_URL="redis://127.0.0.1:6379/3", EVALSITE_INSTANCE_PREFIX="eval-b")
    assert chosen == ("eval-b", "eval-b")
