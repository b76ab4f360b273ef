#!/usr/bin/env python3
# Mints a device JWT the way an app's backend would (README "Device credentials"): mint_device_token.py USER [CHANNEL...]
import base64, hashlib, hmac, json, sys, time
b64 = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
app = json.load(open("app.json"))
now = int(time.time())
claims = {"sub": sys.argv[1],            # the user id: the device may only write installations of this user
          "aud": app["appId"],           # this app (a string, or an array holding it)
          "iat": now, "exp": now + 3600, # at most the app's device-token lifetime ahead (24 h by default)
          "channels": sys.argv[2:]}      # the channels this user may put on an installation
head = b64(b'{"alg":"HS256","typ":"JWT"}') + "." + b64(json.dumps(claims, separators=(",", ":")).encode())
print(head + "." + b64(hmac.new(app["deviceSecret"].encode(), head.encode(), hashlib.sha256).digest()))
