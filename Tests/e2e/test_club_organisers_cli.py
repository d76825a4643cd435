"""`gather club organisers`: the club's accounts from the command line, on the database itself.

Against a real PostgreSQL and two real `gather club serve` instances: what the command does shows
on every instance at once (a removed organiser's token and a reset password's old sessions stop
working through nginx), and a bad name or an unknown organiser changes nothing.
"""
import subprocess

from clublib import BINARY, PASSWORD, new_id


def organisers(club, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    url = club.instances[0].postgres_url
    done = subprocess.run([BINARY, "club", "organisers", *args, "--postgres", url], capture_output=True, text=True,
                          timeout=60)
    if check:
        assert done.returncode == 0, (done.stdout, done.stderr)
    return done


def register(club, username: str) -> str:
    status, body = club.api("POST", "/club/api/register", {"id": new_id(), "username": username, "password": PASSWORD,
                                                            "inviteCode": club.invite})
    assert status == 200, body
    return body["token"]


def test_list_remove_make_owner_and_reset_password_reach_every_instance(club):
    owner = club.register_owner("ana")
    bea = register(club, "bea")
    assert organisers(club, "list").stdout.split("\n")[:2] == ["ana (owner)", "bea"]

    # The owner cannot be removed while they own the club; nothing changes.
    refused = organisers(club, "remove", "ana", check=False)
    assert refused.returncode != 0 and "owns the club" in refused.stderr
    assert club.api("GET", "/club/api/club", token=owner)[0] == 200

    organisers(club, "make-owner", "bea")
    assert organisers(club, "list").stdout.split("\n")[:2] == ["bea (owner)", "ana"]
    for instance in club.instances:
        status, body = club.api("PATCH", "/club/api/club", {"id": new_id(), "name": "Riverside FC"}, token=owner,
                                base=instance.base_url)
        assert (status, body["error"]["code"]) == (403, "forbidden"), body

    organisers(club, "remove", "ana")
    for instance in club.instances:
        assert club.api("GET", "/club/api/club", token=owner, base=instance.base_url)[0] == 401

    printed = organisers(club, "reset-password", "bea").stdout
    new_password = printed.split("New password for bea: ", 1)[1].split("\n", 1)[0]
    assert club.api("GET", "/club/api/club", token=bea)[0] == 401
    status, _ = club.api("POST", "/club/api/login", {"id": new_id(), "username": "bea", "password": PASSWORD})
    assert status == 401
    status, body = club.api("POST", "/club/api/login", {"id": new_id(), "username": "bea", "password": new_password})
    assert status == 200 and body["owner"] is True, body


def test_a_bad_or_unknown_name_changes_nothing(club):
    club.register_owner("ana")
    long_name = organisers(club, "remove", "x" * 5000, check=False)
    assert long_name.returncode != 0 and "1–32" in long_name.stderr and "Nothing was sent" in long_name.stderr
    unknown = organisers(club, "make-owner", "nobody-here", check=False)
    assert unknown.returncode != 0 and "No organiser is called nobody-here" in unknown.stderr
    assert organisers(club, "list").stdout.split("\n")[0] == "ana (owner)"
