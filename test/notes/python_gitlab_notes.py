"""python-gitlab against commit comments and commit discussions, as a python-gitlab user writes them (the checks of its
functional tests test_commit_comment and test_commit_discussion, and a little more). Prints ok at the end."""
import os

import gitlab

gl = gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=os.environ["GITLAB_TOKEN"])
project = gl.projects.create({"name": os.environ["PROJECT_NAME"]})
project.commits.create({"branch": "main", "commit_message": "First", "actions": [
    {"action": "create", "file_path": "a.txt", "content": "one\ntwo\n"},
]})
commit = project.commits.list()[0]

# Commit comments.
commit.comments.create({"note": "This is a commit comment"})
assert len(commit.comments.list()) == 1
line = commit.comments.create({"note": "On a line", "path": "a.txt", "line": 2, "line_type": "new"})
assert (line.path, line.line, line.line_type) == ("a.txt", 2, "new"), line.attributes
assert [c.note for c in commit.comments.list()] == ["This is a commit comment", "On a line"]

# Commit discussions: create, list, add a note, get it, change it, read the thread back, delete the note.
discussion = commit.discussions.create({"body": "Discussion body"})
assert discussion in commit.discussions.list()
note = discussion.notes.create({"body": "first note"})
note_from_get = discussion.notes.get(note.id)
note_from_get.body = "updated body"
note_from_get.save()
discussion = commit.discussions.get(discussion.id)
assert discussion.attributes["notes"][-1]["body"] == "updated body"
note_from_get.delete()
discussion = commit.discussions.get(discussion.id)
assert [n["body"] for n in discussion.attributes["notes"]] == ["Discussion body"]

# A single comment cannot be replied to on a commit.
single = [d for d in commit.discussions.list() if d.individual_note][0]
try:
    single.notes.create({"body": "reply"})
    raise AssertionError("a reply to a single commit comment was accepted")
except gitlab.exceptions.GitlabCreateError as error:
    assert error.response_code == 400 and "Discussion can not be replied to." in str(error.error_message), error

project.delete()
print("python-gitlab notes: ok")
