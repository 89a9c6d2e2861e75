"""Config: defaults, files, and errors that name the file and key."""

import pytest

from rdbscope import ConfigError
from rdbscope.config import Config, config_from_mapping, find_config, load_config
from rdbscope.passes.bigkeys import BigKeyOptions
from rdbscope.passes.expiry import ExpiryOptions


def test_defaults_follow_seed_004():
    options = Config().bigkeys
    assert options.string_bytes == 10_240
    assert options.element_limits() == {"hash": 5000, "list": 5000, "set": 5000, "zset": 5000,
                                        "stream": 10_000}
    assert options.memory_bytes == 1024 * 1024


def test_every_option_has_a_doc():
    import dataclasses

    for options in (Config().patterns, Config().bigkeys, Config().ttl, Config().expiry):
        for f in dataclasses.fields(options):
            assert f.metadata.get("doc"), f"{type(options).__name__}.{f.name}"


def test_rdbscope_toml(tmp_path):
    path = tmp_path / "rdbscope.toml"
    path.write_text('ignore = ["exp003"]\n[bigkeys]\nstring_bytes = 20480\n'
                    '[expiry]\nwindows_s = [60, 5]\nmin_ratio = 4\n[rules.NAM006]\nmax_bytes = 64\n')
    config = load_config(path)
    assert config.bigkeys.string_bytes == 20480
    assert config.bigkeys.hash_fields == 5000
    assert config.expiry.windows_s == (1, 5, 60)
    assert config.expiry.min_ratio == 4.0
    assert config.ignore == ("EXP003",)
    assert config.rules["NAM006"].max_bytes == 64
    assert config.source == str(path)


def test_pyproject_section_and_discovery(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.rdbscope.ttl]\nmixed_min_keys = 3\n')
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_config(nested) == tmp_path / "pyproject.toml"
    assert load_config(start=nested).ttl.mixed_min_keys == 3
    (nested / "rdbscope.toml").write_text("[ttl]\nmixed_min_keys = 7\n")
    assert load_config(start=nested).ttl.mixed_min_keys == 7


def test_no_config_file_gives_defaults(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_config(tmp_path) is None
    assert load_config(start=tmp_path) == Config()


@pytest.mark.parametrize("text, message", [
    ("[bigkeys]\nstrng_bytes = 1\n", r"rdbscope.toml: \[bigkeys\] strng_bytes: unknown key"),
    ("[bigkeys]\nstring_bytes = \"10 kg\"\n", r"\[bigkeys\] string_bytes: not a size: '10 kg'"),
    ("[bigkeys]\nstring_bytes = \"0KB\"\n", r"\[bigkeys\] string_bytes: a size must be positive"),
    ("[bigkeys]\nstring_bytes = true\n", r"\[bigkeys\] string_bytes: expected int"),
    ("[bigkeys]\nstring_bytes = -5\n", r"\[bigkeys\] string_bytes must be > 0"),
    ("[bigkeys]\nconcentration_share = 1.5\n", r"concentration_share must be between 0 and 1"),
    ("[expiry]\nwindows_s = [1, \"m\"]\n", r"\[expiry\] windows_s: expected a list of int"),
    ("[ttl]\nvolatile_words = [\"\"]\n", r"volatile_words must be non-empty strings"),
    ("bigkeys = 3\n", r"rdbscope.toml: bigkeys: expected a table"),
    ("colour = 'red'\n", r"rdbscope.toml: colour: unknown key"),
    ("select = 'BIG'\n", r"select: expected a list of finding codes"),
    ("[rules]\nNAM001 = 3\n", r"rules: expected tables"),
    ("[bigkeys\n", r"rdbscope.toml: not valid TOML"),
])
def test_bad_config_names_file_and_key(tmp_path, text, message):
    path = tmp_path / "rdbscope.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_pyproject_errors_name_the_tool_table(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.rdbscope]\nbogus = 1\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml: \[tool.rdbscope\] bogus: unknown key"):
        load_config(path)


def test_missing_file():
    with pytest.raises(ConfigError, match="cannot read"):
        load_config("/nonexistent/rdbscope.toml")


def test_select_and_ignore_by_code_or_family():
    config = config_from_mapping({"select": ["BIG", "TTL002"], "ignore": ["BIG005"]})
    assert config.is_enabled("BIG001") and config.is_enabled("TTL002")
    assert not config.is_enabled("BIG005") and not config.is_enabled("TTL001") and not config.is_enabled("EXP001")
    assert Config().is_enabled("EXP003")


def test_options_are_frozen():
    with pytest.raises(AttributeError):
        BigKeyOptions().string_bytes = 1
    assert ExpiryOptions(windows_s=(60,)).windows_s == (1, 60)


def test_opt_in_codes_are_enabled_only_by_their_full_code():
    config = config_from_mapping({"extend_select": ["NAM", "NAM013"]})
    assert config.is_enabled("NAM013", opt_in=True) and not config.is_enabled("NAM014", opt_in=True)
    assert config.is_enabled("NAM014")
    ignored = config_from_mapping({"extend_select": ["NAM013"], "ignore": ["NAM"]})
    assert not ignored.is_enabled("NAM013", opt_in=True)
