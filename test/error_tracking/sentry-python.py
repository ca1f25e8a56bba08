# Drives Debian's python3-sentry-sdk, configured only with the DSN in $SENTRY_DSN: two users hit the same exception,
# one message, one session. Prints one JSON line per request the SDK made: the status the server answered.
import json
import os
import sys

import urllib3

statuses = []
_request = urllib3.PoolManager.request


def recording(self, method, url, *args, **kwargs):
    response = _request(self, method, url, *args, **kwargs)
    statuses.append({"status": response.status, "path": url.split("?")[0]})
    return response


urllib3.PoolManager.request = recording

import sentry_sdk  # noqa: E402

sentry_sdk.init(dsn=os.environ["SENTRY_DSN"], release="shop@1.2.3", environment="test", default_integrations=False, auto_session_tracking=False)


def checkout(cart):
    return cart["items"]


for email in ["py-user-1@example.com", "py-user-2@example.com"]:
    sentry_sdk.set_user({"email": email})
    try:
        checkout({})
    except KeyError:
        sentry_sdk.capture_exception()

sentry_sdk.set_user({"ip_address": "10.0.0.7"})
sentry_sdk.capture_message("python: payment provider slow", level="warning")
hub = sentry_sdk.Hub.current
hub.start_session(session_mode="application")
hub.end_session()
sentry_sdk.flush(timeout=10)
for line in statuses:
    print(json.dumps(line))
sys.stdout.flush()
