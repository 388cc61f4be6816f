

def test_os_errors_name_the_users_path_not_a_staging_name() -> None:
    from qosforge.errors import os_error_line, user_path

    assert (
        user_path("/srv/.out.qosforge-bapv9zox/leaf1/.config_db.json.k2j4h1a0.json")
        == "/srv/out/leaf1/config_db.json"
    )
    assert user_path("nodir/.s.json.abcdefgh.json") == "nodir/s.json"
    assert user_path("plain/.hidden") == "plain/.hidden"  # not a staging name: untouched
    line = os_error_line(
        FileNotFoundError(2, "No such file or directory", "/proc/.qf-out.qosforge-bapv9zox")
    )
    assert line.startswith("/proc/qf-out: No such file or directory")
