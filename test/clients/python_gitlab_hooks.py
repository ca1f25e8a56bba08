"""python-gitlab's functional test_project_hooks (tests/functional/api/test_projects.py), plus system hooks, as a
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

project.delete()
print("python-gitlab hooks: ok")
