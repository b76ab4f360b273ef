import Mustache

/// The dashboard's Mustache templates (HTML-escaped by default; no triple mustaches). Every page extends
/// `layout`; every POST form carries the session's CSRF token.
enum DashboardTemplates {
    /// All templates, parsed once. A template that does not parse is a programming error caught by the tests.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in all {
            do { try library.register(text, named: name) } catch { preconditionFailure("dashboard template \(name): \(error)") }
        }
        return library
    }()

    static let all: [(String, String)] = [
        ("layout", layout), ("csrf", csrf), ("logTable", logTable), ("outcomeTable", outcomeTable), ("login", login), ("apps", apps),
        ("secret", secret), ("deleteApp", deleteApp), ("overview", overview), ("inspect", inspect), ("event", event), ("send", send),
        ("message", message), ("check", check),
    ]

    static let layout = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{chrome.title}} · Signalbox</title><link rel="stylesheet" href="/dashboard/style.css"></head>
        <body><header><a class="brand" href="/dashboard">Signalbox</a>
        {{#chrome.csrf}}<nav>{{#chrome.isAdmin}}<a href="/dashboard/apps">Apps</a>{{/chrome.isAdmin}}
        {{#chrome.app}}<a href="/dashboard/apps/{{id}}">Overview</a> <a href="/dashboard/apps/{{id}}/inspect">Inspector</a>
        <a href="/dashboard/apps/{{id}}/send">Test push</a>{{/chrome.app}}</nav>
        <form method="post" action="/dashboard/logout">{{>csrf}}<button class="secondary" type="submit">Sign out</button></form>{{/chrome.csrf}}
        </header>
        <main>
        {{#chrome.error}}<section class="error" role="alert">{{.}}</section>{{/chrome.error}}
        {{$body}}{{/body}}
        </main></body></html>
        """

    static let csrf = #"<input type="hidden" name="csrf" value="{{chrome.csrf}}">"#

    static let logTable = """
        <div class="scroll"><table><thead><tr><th>Time (UTC)</th><th>Token</th><th>Type</th><th>Event</th><th class="num">Attempt</th>
        <th>Outcome</th><th class="num">Status</th><th>Reason</th><th>apns-id</th></tr></thead><tbody>
        {{#lines}}<tr><td class="mono time">{{at}}</td><td><a class="mono" href="/dashboard/apps/{{appId}}/inspect?q={{token}}">{{shortToken}}</a></td>
        <td>{{pushType}}</td><td>{{#eventId}}<a class="mono" href="/dashboard/apps/{{appId}}/events/{{.}}">{{.}}</a>{{/eventId}}{{^eventId}}<span class="muted">direct</span>{{/eventId}}</td>
        <td class="num">{{attempt}}</td><td><span class="badge {{tone}}">{{outcome}}</span></td><td class="num">{{status}}</td><td>{{reason}}</td>
        <td class="mono">{{apnsId}}</td></tr>{{/lines}}
        {{^lines}}<tr><td colspan="9" class="muted">No attempts logged.</td></tr>{{/lines}}
        </tbody></table></div>
        """

    static let outcomeTable = """
        <table class="outcomes"><tbody>{{#outcomes}}<tr><td><span class="badge {{tone}}">{{name}}</span></td><td class="num">{{count}}</td>
        <td><meter min="0" max="{{max}}" value="{{count}}">{{count}}</meter></td></tr>{{/outcomes}}
        {{^outcomes}}<tr><td class="muted">No pushes logged.</td></tr>{{/outcomes}}</tbody></table>
        """

    static let login = """
        {{<layout}}{{$body}}
        <h1>Sign in</h1>
        <section><form method="post" action="/dashboard/login">
        <input type="hidden" name="csrf" value="{{loginToken}}">
        <label for="key">Admin key or an app's server key</label>
        <input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
        <button type="submit">Sign in</button></form>
        <p class="muted">The admin key manages every app; an app's server key opens that app only.</p></section>
        {{/body}}{{/layout}}
        """

    static let apps = """
        {{<layout}}{{$body}}
        <h1>Apps</h1>
        <section class="scroll"><table><thead><tr><th>App</th><th>Environment</th><th>Team / key id</th><th>Sending</th><th>Created (UTC)</th>
        <th>Actions</th></tr></thead><tbody>
        {{#apps}}<tr><td><a href="/dashboard/apps/{{id}}">{{bundleId}}</a><br><code class="muted">{{id}}</code></td><td>{{environment}}</td>
        <td><code>{{teamId}}</code> / <code>{{keyId}}</code></td>
        <td>{{#paused}}<span class="badge bad">paused</span><br><span class="muted">{{reason}}, until {{until}}</span>{{/paused}}{{^paused}}<span class="badge ok">active</span>{{/paused}}</td>
        <td class="mono time">{{created}}</td>
        <td><div class="actions"><form class="inline" method="post" action="/dashboard/apps/{{id}}/server-key">{{>csrf}}<button class="secondary" type="submit">Rotate server key</button></form>
        <a href="/dashboard/apps/{{id}}/delete">Delete…</a></div></td></tr>{{/apps}}
        {{^apps}}<tr><td colspan="6" class="muted">No apps yet: create one below.</td></tr>{{/apps}}
        </tbody></table></section>
        <h2>Create an app</h2>
        <section><form method="post" action="/dashboard/apps" enctype="multipart/form-data">{{>csrf}}
        <label for="bundleId">Bundle id</label><input id="bundleId" name="bundleId" required placeholder="com.example.app">
        <label for="teamId">Team id</label><input id="teamId" name="teamId" required maxlength="10" placeholder="ABCDE12345">
        <label for="keyId">Key id</label><input id="keyId" name="keyId" required maxlength="10" placeholder="KEY1234567">
        <label for="environment">Environment</label>
        <select id="environment" name="environment"><option value="sandbox">sandbox</option><option value="production">production</option></select>
        <label for="privateKey">APNs auth key (.p8 file)</label><input id="privateKey" name="privateKey" type="file" accept=".p8" required>
        <button type="submit">Create app</button></form></section>
        {{/body}}{{/layout}}
        """

    static let secret = """
        {{<layout}}{{$body}}
        <h1>{{heading}}</h1>
        <section class="secret"><p>Copy {{#deviceSecret}}these{{/deviceSecret}}{{^deviceSecret}}this{{/deviceSecret}} now: Signalbox keeps
        only a hash or a sealed copy and never shows {{#deviceSecret}}them{{/deviceSecret}}{{^deviceSecret}}it{{/deviceSecret}} again.</p>
        <dl><dt>App</dt><dd>{{bundleId}} <code id="app-id">{{appId}}</code></dd>
        {{#serverKey}}<dt>Server key</dt><dd><code id="server-key">{{.}}</code></dd>{{/serverKey}}
        {{#deviceSecret}}<dt>Device secret</dt><dd><code id="device-secret">{{.}}</code></dd>{{/deviceSecret}}</dl>
        <p><a class="button" href="/dashboard/apps/{{appId}}">Open the app</a></p></section>
        {{/body}}{{/layout}}
        """

    static let deleteApp = """
        {{<layout}}{{$body}}
        <h1>Delete {{bundleId}}?</h1>
        <section class="error"><p>This deletes the app <code>{{id}}</code> with every installation, registration, event, queued push and
        delivery-log line. It cannot be undone.</p>
        <form method="post" action="/dashboard/apps/{{id}}/delete">{{>csrf}}
        <label for="confirm">Type the bundle id to confirm</label><input id="confirm" name="confirm" required autocomplete="off">
        <div class="actions"><button class="danger" type="submit">Delete app</button> <a href="/dashboard/apps">Cancel</a></div></form></section>
        {{/body}}{{/layout}}
        """

    static let overview = """
        {{<layout}}{{$body}}
        <h1>{{app.bundleId}}</h1>
        {{#app.paused}}<section class="error"><strong>Sending is paused</strong> until {{until}}: APNs answered {{reason}}. Check the app's key,
        team id and environment.</section>{{/app.paused}}
        <section><dl><dt>App id</dt><dd><code>{{app.id}}</code></dd><dt>Environment</dt><dd>{{app.environment}}</dd>
        <dt>Team / key id</dt><dd><code>{{app.teamId}}</code> / <code>{{app.keyId}}</code></dd>
        <dt>Sending</dt><dd>{{#app.paused}}<span class="badge bad">paused</span>{{/app.paused}}{{^app.paused}}<span class="badge ok">active</span>{{/app.paused}}</dd></dl>
        {{#chrome.isAdmin}}<form method="post" action="/dashboard/apps/{{app.id}}/check">{{>csrf}}<button type="submit">Check APNs credentials</button></form>{{/chrome.isAdmin}}</section>
        <div class="cards">{{#counts}}<div class="card"><div class="figure">{{value}}</div><div class="label">{{label}}</div></div>{{/counts}}</div>
        <h2>Pushes in the last hour</h2>
        <section>{{>outcomeTable}}</section>
        <h2>Recent events</h2>
        <section class="scroll"><table><thead><tr><th>Event</th><th>Accepted (UTC)</th><th>State</th><th class="num">Matched</th>
        <th class="num">Delivered</th><th class="num">Pending</th><th class="num">Failed</th><th class="num">Pruned</th><th class="num">Coalesced</th></tr></thead><tbody>
        {{#events}}<tr><td><a class="mono" href="/dashboard/apps/{{appId}}/events/{{id}}">{{id}}</a></td><td class="mono time">{{created}}</td>
        <td><span class="badge {{tone}}">{{state}}</span></td><td class="num">{{matched}}</td><td class="num">{{delivered}}</td>
        <td class="num">{{pending}}</td><td class="num">{{failed}}</td><td class="num">{{pruned}}</td><td class="num">{{coalesced}}</td></tr>{{/events}}
        {{^events}}<tr><td colspan="9" class="muted">No events yet.</td></tr>{{/events}}
        </tbody></table></section>
        {{/body}}{{/layout}}
        """

    static let inspect = """
        {{<layout}}{{$body}}
        <h1>Token inspector</h1>
        <section><form method="get" action="/dashboard/apps/{{app.id}}/inspect">
        <label for="q">Push token, installation id or user id</label><input id="q" name="q" value="{{query}}" required>
        <button type="submit">Search</button></form></section>
        {{#nothingFound}}<section class="notice" id="nothing">Nothing is registered or logged for “{{query}}”.</section>{{/nothingFound}}
        {{#user}}<h2>User {{userId}}</h2><section><p>Installations:</p><ul>{{#installations}}<li><a class="mono" href="/dashboard/apps/{{app.id}}/inspect?q={{.}}">{{.}}</a></li>{{/installations}}</ul></section>{{/user}}
        {{#installation}}<h2>Installation <code>{{id}}</code></h2>
        <section><dl><dt>User</dt><dd>{{#userId}}<a href="/dashboard/apps/{{app.id}}/inspect?q={{.}}">{{.}}</a>{{/userId}}{{^userId}}<span class="muted">none</span>{{/userId}}</dd>
        <dt>Channels</dt><dd>{{channels}}</dd><dt>Environment</dt><dd>{{environment}}</dd><dt>Last seen (UTC)</dt><dd class="mono">{{lastSeen}}</dd>
        <dt>Tokens</dt><dd>{{#tokens}}<a class="mono" href="/dashboard/apps/{{app.id}}/inspect?q={{token}}">{{token}}</a> ({{kind}})<br>{{/tokens}}{{^tokens}}<span class="muted">none</span>{{/tokens}}</dd></dl>
        <h3>Delivery log</h3>{{>logTable}}</section>{{/installation}}
        {{#tokens}}<h2>Token <code>{{token}}</code></h2>
        <section><h3>Registered as</h3>
        {{#hasRegistrations}}<div class="scroll"><table><thead><tr><th>Installation</th><th>User</th><th>Kind</th><th>Reloads</th><th>Configuration</th>
        <th>Registered (UTC)</th></tr></thead><tbody>
        {{#registrations}}<tr><td><a class="mono" href="/dashboard/apps/{{app.id}}/inspect?q={{installationId}}">{{installationId}}</a></td><td>{{userId}}</td>
        <td>{{kind}}</td><td>{{targets}}</td><td class="mono">{{configurations}}</td><td class="mono time">{{seen}}</td></tr>{{/registrations}}
        </tbody></table></div>{{/hasRegistrations}}
        {{^hasRegistrations}}<p class="muted">Not registered: never, or removed after APNs said the token is dead.</p>{{/hasRegistrations}}
        <h3>Delivery log</h3>{{>logTable}}</section>{{/tokens}}
        {{/body}}{{/layout}}
        """

    static let event = """
        {{<layout}}{{$body}}
        <h1>Event <code>{{event.id}}</code></h1>
        <section><dl><dt>State</dt><dd><span class="badge {{event.tone}}">{{event.state}}</span></dd><dt>Accepted (UTC)</dt><dd class="mono">{{event.created}}</dd>
        {{#event.reason}}<dt>Why it failed</dt><dd>{{.}}</dd>{{/event.reason}}</dl></section>
        <div class="cards">{{#counts}}<div class="card"><div class="figure">{{value}}</div><div class="label">{{label}}</div></div>{{/counts}}</div>
        <h2>Its pushes by outcome</h2>
        <section>{{>outcomeTable}}<p class="muted">Each attempt is logged, retries included; a push coalesced into another is logged with the event that planned it.</p></section>
        <h2>Latest attempts</h2>
        <section>{{>logTable}}</section>
        {{/body}}{{/layout}}
        """

    static let send = """
        {{<layout}}{{$body}}
        <h1>Send a test push</h1>
        {{#result}}<section class="{{tone}}" id="result"><h2>APNs answered {{status}}</h2>
        <dl><dt>Outcome</dt><dd><span class="badge {{badge}}">{{outcome}}</span></dd>{{#reason}}<dt>Reason</dt><dd>{{.}}</dd>{{/reason}}
        {{#apnsId}}<dt>apns-id</dt><dd class="mono">{{.}}</dd>{{/apnsId}}</dl>
        <p><a href="/dashboard/apps/{{app.id}}/inspect?q={{token}}">Open the token in the inspector</a></p></section>{{/result}}
        <section><form method="post" action="/dashboard/apps/{{app.id}}/send">{{>csrf}}
        <label for="token">Push token (hex)</label><input id="token" name="token" value="{{form.token}}" required class="mono">
        <label for="pushType">Push type</label>
        <select id="pushType" name="pushType">{{#form.types}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/form.types}}</select>
        <label for="environment">Environment</label>
        <select id="environment" name="environment">{{#form.environments}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/form.environments}}</select>
        <label for="payload">Payload (JSON object; empty sends the push type's own)</label>
        <textarea id="payload" name="payload">{{form.payload}}</textarea>
        <button type="submit">Send</button></form></section>
        {{/body}}{{/layout}}
        """

    static let check = """
        {{<layout}}{{$body}}
        <h1>APNs credentials</h1>
        {{#results}}<section class="{{tone}}"><h2>{{environment}}: {{verdict}}</h2>
        <dl><dt>Team / key id</dt><dd><code>{{teamId}}</code> / <code>{{keyId}}</code></dd><dt>APNs answered</dt><dd class="mono">{{answer}}</dd></dl>
        <p>{{explanation}}</p></section>{{/results}}
        <section><p class="muted">Each environment was sent a push to a token no device has; APNs checks the key, team and topic first.</p>
        <p><a href="/dashboard/apps/{{app.id}}">Back to the app</a></p></section>
        {{/body}}{{/layout}}
        """

    static let message = """
        {{<layout}}{{$body}}
        <h1>{{heading}}</h1>
        <section><p>{{text}}</p><p><a href="/dashboard">Back to the dashboard</a></p></section>
        {{/body}}{{/layout}}
        """
}
