"""A lifecycle script as a gitlab.com administrator would write it with python-gitlab, run unchanged against the server.

It creates, updates, shares, transfers and deletes users, groups, projects and memberships, with avatars and sudo,
walks keyset and offset pagination to the end, checks python-gitlab's exceptions and their codes, and deletes
everything it made, then checks none of it is readable any more.

Usage: GITLAB_URL=http://host:port GITLAB_TOKEN=<administrator token with api and sudo> python3 python_gitlab_lifecycle.py
Exits 0 when every check holds; an AssertionError (or any python-gitlab exception) otherwise.
"""

import datetime
import os
import struct
import sys
import tempfile
import time
import uuid
import zlib

import gitlab
import gitlab.const
import requests

URL = os.environ["GITLAB_URL"]
TOKEN = os.environ["GITLAB_TOKEN"]
RUN = uuid.uuid4().hex[:8]


def png(width, height, rgb):
    """A valid RGB PNG of one colour."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + bytes(rgb) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def write_png(rgb):
    handle = tempfile.NamedTemporaryFile(suffix=".png", delete=False)
    handle.write(png(4, 4, rgb))
    handle.close()
    return handle.name


def expect_error(cls, code, call, *args, **kwargs):
    """Runs call and checks it raises python-gitlab's exception cls with HTTP status code."""
    try:
        call(*args, **kwargs)
    except cls as error:
        assert error.response_code == code, f"{call.__qualname__}: expected {code}, got {error.response_code}: {error}"
        return error
    raise AssertionError(f"{call.__qualname__} did not raise {cls.__name__}")


def eventually(check, what, timeout=20.0):
    """Polls check until it returns truthy (deletions of groups and projects run as background jobs, as on GitLab)."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def gone(getter, ident):
    try:
        getter(ident)
    except gitlab.exceptions.GitlabGetError as error:
        assert error.response_code == 404, f"expected 404 for {ident}, got {error.response_code}"
        return True
    return False


def fetch_avatar(url):
    # Avatars of private groups and projects are readable only by who may read them (GitLab's UploadsController).
    response = requests.get(url, headers={"PRIVATE-TOKEN": TOKEN}, timeout=10)
    assert response.status_code == 200, f"avatar {url}: {response.status_code}"
    assert response.content.startswith(b"\x89PNG"), f"avatar {url} is not a PNG"
    return response.content


created_users, created_groups, created_projects = [], [], []

gl = gitlab.Gitlab(URL, private_token=TOKEN)
gl.auth()
assert gl.user.is_admin, "the token must be an administrator's"
version = gl.version()
assert version[0] != "unknown", f"version: {version}"

red, blue, green = write_png((255, 0, 0)), write_png((0, 0, 255)), write_png((0, 255, 0))

# ---- Users ---------------------------------------------------------------------------------------------------
with open(red, "rb") as avatar:
    alice = gl.users.create(
        {
            "username": f"alice-{RUN}",
            "name": "Alice Liddell",
            "email": f"alice-{RUN}@example.com",
            "password": "a-long-password-1",
            "skip_confirmation": True,
            "can_create_group": True,
            # python-gitlab 3.12 encodes only str and bool values in multipart bodies (on gitlab.com too).
            "projects_limit": "50",
            "bio": "Made by python-gitlab",
            "avatar": avatar,
        }
    )
created_users.append(alice)
assert alice.username == f"alice-{RUN}" and alice.state == "active", alice.attributes
assert alice.avatar_url, "users.create with an avatar answers its avatar_url"
assert fetch_avatar(alice.avatar_url) == png(4, 4, (255, 0, 0))
assert alice.bio == "Made by python-gitlab" and alice.projects_limit == 50 and alice.can_create_group is True

bob = gl.users.create(
    {"username": f"bob-{RUN}", "name": "Bob", "email": f"bob-{RUN}@example.com", "password": "a-long-password-2", "skip_confirmation": True}
)
created_users.append(bob)
carol = gl.users.create(
    {"username": f"carol-{RUN}", "name": "Carol", "email": f"carol-{RUN}@example.com", "reset_password": False, "password": "a-long-password-3"}
)
created_users.append(carol)

expect_error(
    gitlab.exceptions.GitlabCreateError,
    409,
    gl.users.create,
    {"username": f"alice-{RUN}", "name": "Again", "email": f"other-{RUN}@example.com", "password": "a-long-password-4"},
)
expect_error(gitlab.exceptions.GitlabGetError, 404, gl.users.get, 987654321)

# save(): only changed attributes go out, as JSON.
alice.name = "Alice P. Liddell"
alice.location = "Wonderland"
alice.save()
again = gl.users.get(alice.id)
assert (again.name, again.location) == ("Alice P. Liddell", "Wonderland"), again.attributes
# A new avatar through update (multipart PUT).
with open(blue, "rb") as avatar:
    # python-gitlab 3.12 requires email, username and name on every users.update.
    gl.users.update(alice.id, {"email": again.email, "username": again.username, "name": again.name, "avatar": avatar, "private_profile": True})
again = gl.users.get(alice.id)
assert fetch_avatar(again.avatar_url) == png(4, 4, (0, 0, 255))
assert again.private_profile is True  # sent as "1": python-gitlab's multipart booleans

# States.
assert bob.block() is True and bob.state == "blocked"
assert gl.users.get(bob.id).state == "blocked"
assert bob.unblock() is True and gl.users.get(bob.id).state == "active"
bob.deactivate()
assert gl.users.get(bob.id).state == "deactivated"
bob.activate()
assert gl.users.get(bob.id).state == "active"
bob.ban()
assert gl.users.get(bob.id).state == "banned"
bob.unban()
assert gl.users.get(bob.id).state == "active"

# Keys and emails.
key = alice.keys.create(
    {"title": "laptop", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl " + RUN}
)
assert key.title == "laptop" and key.id in [k.id for k in alice.keys.list()]
email = alice.emails.create({"email": f"alice-{RUN}@work.example.com", "skip_confirmation": True})
assert email.email == f"alice-{RUN}@work.example.com"
assert email.email in [e.email for e in alice.emails.list()]
alice.emails.delete(email.id)
assert email.email not in [e.email for e in alice.emails.list()]
key.delete()
assert alice.keys.list() == []

# Tokens: a personal access token for each user, and an impersonation token for Alice.
expires = (datetime.date.today() + datetime.timedelta(days=30)).isoformat()
alice_token = alice.personal_access_tokens.create({"name": "lifecycle", "scopes": ["api"], "expires_at": expires}).token
bob_token = bob.personal_access_tokens.create({"name": "lifecycle", "scopes": ["api"], "expires_at": expires}).token
carol_token = carol.personal_access_tokens.create({"name": "lifecycle", "scopes": ["read_api"], "expires_at": expires}).token
impersonation = alice.impersonationtokens.create({"name": "impersonate", "scopes": ["api", "read_user"], "expires_at": expires})
assert impersonation.impersonation is True and impersonation.token
as_impersonated = gitlab.Gitlab(URL, private_token=impersonation.token)
as_impersonated.auth()
assert as_impersonated.user.username == alice.username
assert impersonation.id in [t.id for t in alice.impersonationtokens.list(state="active")]
alice.impersonationtokens.delete(impersonation.id)
expect_error(gitlab.exceptions.GitlabAuthenticationError, 401, as_impersonated.auth)

gl_alice = gitlab.Gitlab(URL, private_token=alice_token)
gl_bob = gitlab.Gitlab(URL, private_token=bob_token)
gl_carol = gitlab.Gitlab(URL, private_token=carol_token)
gl_alice.auth()
assert gl_alice.user.username == alice.username

# Sudo: a parameter on one call, and a Sudo header on every call of a second client.
me = gl.http_get("/user", sudo=bob.username)
assert me["username"] == bob.username, me
gl_sudo = gitlab.Gitlab(URL, private_token=TOKEN)
gl_sudo.session.headers["Sudo"] = alice.username
gl_sudo.auth()
assert gl_sudo.user.username == alice.username, gl_sudo.user.username

# ---- Groups --------------------------------------------------------------------------------------------------
with open(green, "rb") as avatar:
    team = gl_alice.groups.create(
        {"name": f"Team {RUN}", "path": f"team-{RUN}", "description": "first", "visibility": "private", "avatar": avatar}
    )
created_groups.append(team)
assert team.full_path == f"team-{RUN}" and team.visibility == "private"
assert fetch_avatar(team.avatar_url) == png(4, 4, (0, 255, 0))
expect_error(gitlab.exceptions.GitlabCreateError, 400, gl_alice.groups.create, {"name": "dup", "path": f"team-{RUN}"})

platform = gl_alice.groups.create({"name": "Platform", "path": f"platform-{RUN}", "parent_id": team.id})
assert platform.full_path == f"team-{RUN}/platform-{RUN}" and platform.parent_id == team.id
assert [g.id for g in team.subgroups.list()] == [platform.id]
assert [g.id for g in team.descendant_groups.list()] == [platform.id]

team.description = "second"
team.name = f"Team {RUN} renamed"
team.save()
assert gl_alice.groups.get(team.id).description == "second"
assert gl_alice.groups.get(f"team-{RUN}").name == f"Team {RUN} renamed"

partners = gl_alice.groups.create({"name": f"Partners {RUN}", "path": f"partners-{RUN}", "visibility": "private"})
created_groups.append(partners)

# Transfer the subgroup under another group, then to the top level.
platform.transfer(partners.id)
platform = gl_alice.groups.get(platform.id)
assert platform.full_path == f"partners-{RUN}/platform-{RUN}" and platform.parent_id == partners.id, platform.full_path
platform.transfer()
platform = gl_alice.groups.get(platform.id)
assert platform.full_path == f"platform-{RUN}" and platform.parent_id is None, platform.full_path
created_groups.append(platform)

# Memberships.
member = team.members.create({"user_id": bob.id, "access_level": gitlab.const.DEVELOPER_ACCESS})
assert member.username == bob.username and member.access_level == gitlab.const.DEVELOPER_ACCESS
expect_error(
    gitlab.exceptions.GitlabCreateError,
    409,
    team.members.create,
    {"user_id": bob.id, "access_level": gitlab.const.REPORTER_ACCESS},
)
member = team.members.get(bob.id)
member.access_level = gitlab.const.MAINTAINER_ACCESS
member.expires_at = expires
member.save()
member = team.members.get(bob.id)
assert member.access_level == gitlab.const.MAINTAINER_ACCESS and member.expires_at == expires, member.attributes
gl.groups.get(partners.id).members.create({"user_id": carol.id, "access_level": gitlab.const.GUEST_ACCESS})
assert sorted(m.username for m in team.members_all.list(get_all=True)) == sorted([alice.username, bob.username])
assert team.members_all.get(bob.id).access_level == gitlab.const.MAINTAINER_ACCESS

# Sharing a group with a group.
team.share(partners.id, gitlab.const.REPORTER_ACCESS, expires_at=expires)
shared = gl_alice.groups.get(team.id)
links = shared.shared_with_groups
assert [(s["group_id"], s["group_access_level"], s["expires_at"]) for s in links] == [(partners.id, gitlab.const.REPORTER_ACCESS, expires)], links
team.unshare(partners.id)
assert gl_alice.groups.get(team.id).shared_with_groups == []

# ---- Projects ------------------------------------------------------------------------------------------------
with open(red, "rb") as avatar:
    api = gl_alice.projects.create(
        {
            "name": "API",
            "path": "api",
            "namespace_id": str(team.id),  # a multipart body: python-gitlab 3.12 sends only str and bool there
            "description": "the API",
            "visibility": "private",
            "initialize_with_readme": True,
            "avatar": avatar,
        }
    )
created_projects.append(api)
assert api.path_with_namespace == f"team-{RUN}/api" and api.namespace["id"] == team.id
assert fetch_avatar(api.avatar_url) == png(4, 4, (255, 0, 0))
web = gl_alice.projects.create({"name": "Web", "namespace_id": team.id, "topics": ["frontend", "vue"], "visibility": "private"})
created_projects.append(web)
assert sorted(web.topics) == ["frontend", "vue"], web.topics
expect_error(gitlab.exceptions.GitlabCreateError, 400, gl_alice.projects.create, {"name": "API", "path": "api", "namespace_id": team.id})
expect_error(gitlab.exceptions.GitlabGetError, 404, gl_carol.projects.get, api.id)

# A project created for another user, by an administrator, two ways.
bobs = gl.projects.create({"name": f"bobs-{RUN}"}, sudo=bob.username)
created_projects.append(bobs)
assert bobs.namespace["path"] == bob.username and bobs.owner["id"] == bob.id
carols = carol.projects.create({"name": f"carols-{RUN}"})
created_projects.append(carols)
assert carols.namespace["path"] == carol.username
assert [p.id for p in carol.projects.list()] == [carols.id]

# save(), a new path, and the old path still reaching the project.
api.description = "the public API"
api.path = "public-api"
api.save()
renamed = gl_alice.projects.get(f"team-{RUN}/api")
assert renamed.id == api.id and renamed.path_with_namespace == f"team-{RUN}/public-api", renamed.path_with_namespace
assert renamed.description == "the public API"

# A new avatar the way python-gitlab's documentation sets one: assign a file, then save() (a multipart PUT).
with open(green, "rb") as avatar:
    api.avatar = avatar
    api.save()
assert fetch_avatar(gl.projects.get(api.id).avatar_url) == png(4, 4, (0, 255, 0))
with open(blue, "rb") as avatar:
    team.avatar = avatar
    team.save()
assert fetch_avatar(gl.groups.get(team.id).avatar_url) == png(4, 4, (0, 0, 255))

# Transfer to another namespace and back.
api.transfer(partners.id)
assert gl_alice.projects.get(api.id).path_with_namespace == f"partners-{RUN}/public-api"
api.transfer(f"team-{RUN}")
assert gl_alice.projects.get(api.id).namespace["id"] == team.id

# Project memberships.
pmember = api.members.create({"user_id": carol.id, "access_level": gitlab.const.REPORTER_ACCESS})
assert pmember.access_level == gitlab.const.REPORTER_ACCESS
pmember.access_level = gitlab.const.DEVELOPER_ACCESS
pmember.save()
assert api.members.get(carol.id).access_level == gitlab.const.DEVELOPER_ACCESS
assert sorted(m.username for m in api.members_all.list(get_all=True)) == sorted([alice.username, bob.username, carol.username])
expect_error(gitlab.exceptions.GitlabGetError, 404, api.members.get, 987654321)

# Sharing a project with a group.
api.share(partners.id, gitlab.const.GUEST_ACCESS, expires_at=expires)
links = gl_alice.projects.get(api.id).shared_with_groups
assert [(s["group_id"], s["group_access_level"], s["expires_at"]) for s in links] == [(partners.id, gitlab.const.GUEST_ACCESS, expires)], links
api.unshare(partners.id)
assert gl_alice.projects.get(api.id).shared_with_groups == []

# Forks, stars, archiving.
expect_error(gitlab.exceptions.GitlabCreateError, 403, api.forks.create, {"namespace": bob.username}, sudo=bob.username)
fork = gl.projects.get(api.id, lazy=True).forks.create({"namespace": bob.username}, sudo=bob.username)
created_projects.append(fork)
fork = gl_bob.projects.get(fork.id)
assert fork.forked_from_project["id"] == api.id and fork.path_with_namespace == f"{bob.username}/public-api"
assert [f.id for f in gl.projects.get(api.id, lazy=True).forks.list()] == [fork.id]
assert api.forks.list() == []  # Bob's private fork is hidden from Alice
api.star()
assert api.star_count == 1
assert [s["user"]["username"] for s in gl_alice.http_list(f"/projects/{api.id}/starrers", get_all=True)] == [alice.username]
api.unstar()
assert api.star_count == 0
api.archive()
assert api.archived is True and gl_alice.projects.get(api.id).archived is True
api.unarchive()
assert api.archived is False

# Fork relations made and undone by an administrator.
admin_fork = gl.projects.get(fork.id)
admin_fork.delete_fork_relation()
assert "forked_from_project" not in gl.projects.get(fork.id).attributes
admin_fork.create_fork_relation(api.id)
assert gl.projects.get(fork.id).forked_from_project["id"] == api.id

# Who reaches what.
memberships = {(m.source_type, m.source_id): m.access_level for m in gl.users.get(bob.id).memberships.list(get_all=True)}
assert memberships[("Namespace", team.id)] == gitlab.const.MAINTAINER_ACCESS, memberships
assert memberships[("Project", fork.id)] == gitlab.const.OWNER_ACCESS, memberships
assert {u.username for u in api.users.list(get_all=True)} == {alice.username, bob.username, carol.username}
assert [g.id for g in gl_alice.projects.get(api.id).groups.list()] == [team.id]
assert gl_alice.namespaces.get(f"team-{RUN}").kind == "group"
assert gl_alice.namespaces.get(alice.username).kind == "user"
assert [(t.name, t.user_id, t.active) for t in gl_alice.personal_access_tokens.list()] == [("lifecycle", alice.id, True)]

# A group made public is listed to anonymous callers, by keyset pages as gitlab.com pages them.
team.visibility = "public"
team.save()
anonymous = gitlab.Gitlab(URL)
public_groups = list(anonymous.groups.list(iterator=True, pagination="keyset", order_by="name", sort="asc", per_page=1))
assert team.id in [g.id for g in public_groups]
team.visibility = "private"
team.save()
assert team.id not in [g.id for g in anonymous.groups.list(get_all=True)]

# ---- Pagination ----------------------------------------------------------------------------------------------
for i in range(3):
    created_projects.append(gl_alice.projects.create({"name": f"extra-{i}", "namespace_id": team.id}))

offset = gl.users.list(get_all=True, per_page=2)
keyset = list(gl.users.list(iterator=True, pagination="keyset", order_by="id", sort="asc", per_page=2))
assert [u.id for u in keyset] == sorted(u.id for u in offset), "keyset users walk to the end"
listing = gl.users.list(iterator=True, pagination="keyset", order_by="id", per_page=2)
walked = list(listing)
assert len(walked) == len(offset) and len({u.id for u in walked}) == len(walked)

offset_projects = gl.projects.list(get_all=True, per_page=2, order_by="id", sort="asc")
keyset_projects = list(gl.projects.list(iterator=True, pagination="keyset", order_by="id", sort="asc", per_page=2))
assert [p.id for p in keyset_projects] == [p.id for p in offset_projects]
assert {p.id for p in created_projects} <= {p.id for p in keyset_projects}

pages = gl_alice.groups.get(team.id).projects.list(per_page=2, page=2)
assert len(pages) == 2
first = gl_alice.projects.list(iterator=True, per_page=2, owned=True)
assert first.total is not None and first.total_pages == (first.total + 1) // 2 and first.next_page == 2, (first.total, first.total_pages, first.next_page)
assert len(list(first)) == first.total

expect_error(gitlab.exceptions.GitlabListError, 405, gl.projects.list, pagination="keyset", order_by="name", get_all=False)

# ---- Cleaning up ---------------------------------------------------------------------------------------------
team.members.delete(bob.id)
expect_error(gitlab.exceptions.GitlabGetError, 404, team.members.get, bob.id)
api.members.delete(carol.id)
expect_error(gitlab.exceptions.GitlabDeleteError, 404, api.members.delete, carol.id)

for project in reversed(created_projects):
    gl.projects.delete(project.id)
for project in created_projects:
    eventually(lambda: gone(gl.projects.get, project.id), f"project {project.id} to be deleted")
for group in reversed(created_groups):
    gl.groups.delete(group.id)
for group in created_groups:
    eventually(lambda: gone(gl.groups.get, group.id), f"group {group.id} to be deleted")
for user in created_users:
    user.delete(hard_delete=True)
for user in created_users:
    eventually(lambda: gone(gl.users.get, user.id), f"user {user.id} to be deleted")
    assert gl.users.list(username=user.username) == []

for path in (red, blue, green):
    os.unlink(path)
print("python-gitlab lifecycle: ok")
