"""python-gitlab's functional test_project_hooks (tests/functional/api/test_projects.py), plus system hooks and test_group_hooks (test_groups.py), as a
script: GITLAB_URL and GITLAB_TOKEN (an administrator's) name the server."""
import os

import gitlab

gl = gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=os.environ["GITLAB_TOKEN"])
gl.auth()

project = gl.projects.create({"name": "python-gitlab-hooks"})

# test_project_hooks
hook = project.hooks.create({"url": "http://hook.url"})
assert hook in project.hooks.list(), project.hooks.list()
hook.push_events = False
hook.tag_push_events = True
hook.save()
again = project.hooks.get(hook.id)
assert again.tag_push_events is True and again.push_events is False, again.attributes
assert not hasattr(again, "token")
project.hooks.delete(hook.id)
assert hook not in project.hooks.list()

# test_hooks (system hooks)
system = gl.hooks.create({"url": "http://system.hook.url", "token": "s3cret"})
assert system in gl.hooks.list()
assert "token" not in system.attributes
gl.hooks.delete(system.id)
assert system not in gl.hooks.list()

# test_group_hooks (tests/functional/api/test_groups.py)
group = gl.groups.create({"name": "python-gitlab-hooks", "path": "python-gitlab-hooks"})
hook = group.hooks.create({"url": "http://hook.url"})
assert hook in group.hooks.list(), group.hooks.list()
hook.note_events = True
hook.save()
hook = group.hooks.get(hook.id)
assert hook.note_events is True, hook.attributes
assert hook.group_id == group.id, hook.attributes
hook.delete()
assert hook not in group.hooks.list()
group.delete()

project.delete()
print("python-gitlab hooks: ok")
