/// The dashboard's one stylesheet, served at `/dashboard/style.css` (the pages' CSP allows no inline style).
/// Plain CSS: readable on a phone (tables scroll sideways, forms stack), light and dark.
enum DashboardStyle {
    static let css = """
        :root { color-scheme: light dark; --fg: #1d1d1f; --muted: #6e6e73; --bg: #f5f5f7; --card: #fff; --line: #d2d2d7;
          --accent: #0a66c2; --ok: #1a7f37; --warn: #9a6700; --bad: #c62828; }
        @media (prefers-color-scheme: dark) { :root { --fg: #f5f5f7; --muted: #a1a1a6; --bg: #111; --card: #1c1c1e; --line: #3a3a3c;
          --accent: #4ea1ff; --ok: #3fb950; --warn: #d29922; --bad: #f85149; } }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.45 -apple-system, system-ui, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
        header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .75rem 1rem; background: var(--card);
          border-bottom: 1px solid var(--line); }
        header .brand { font-weight: 700; font-size: 1.1rem; color: var(--fg); text-decoration: none; }
        header nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; flex: 1; }
        header form { margin: 0; }
        main { max-width: 1100px; margin: 0 auto; padding: 1rem; }
        h1 { font-size: 1.5rem; margin: .5rem 0 1rem; word-break: break-word; }
        h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
        a { color: var(--accent); }
        section, .card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1rem; margin: 0 0 1rem; }
        .cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: .75rem; margin-bottom: 1rem; }
        .cards .card { margin: 0; }
        .card .figure { font-size: 1.6rem; font-weight: 600; }
        .card .label { color: var(--muted); font-size: .85rem; }
        .scroll { overflow-x: auto; }
        table { width: 100%; border-collapse: collapse; font-size: .92rem; }
        th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { color: var(--muted); font-weight: 600; white-space: nowrap; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
        code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .88em; word-break: break-all; }
        label { display: block; font-weight: 600; margin: .6rem 0 .2rem; }
        input, select, textarea { width: 100%; max-width: 32rem; font: inherit; padding: .45rem .55rem; border: 1px solid var(--line);
          border-radius: 6px; background: var(--bg); color: var(--fg); }
        textarea { min-height: 5rem; font-family: ui-monospace, monospace; font-size: .9rem; }
        button, .button { display: inline-block; font: inherit; font-weight: 600; padding: .45rem .9rem; margin-top: .8rem; border-radius: 6px;
          border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; }
        button.secondary { background: transparent; color: var(--accent); margin-top: 0; }
        button.danger { background: var(--bad); border-color: var(--bad); }
        .inline { display: inline; margin: 0; }
        .badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .8rem; font-weight: 600;
          border: 1px solid currentColor; white-space: nowrap; }
        .ok { color: var(--ok); } .warn { color: var(--warn); } .bad { color: var(--bad); } .muted { color: var(--muted); }
        .notice { border-left: 4px solid var(--warn); }
        .error { border-left: 4px solid var(--bad); }
        .secret { border-left: 4px solid var(--accent); }
        td.time { white-space: nowrap; word-break: normal; }
        table.outcomes td:first-child { width: 8rem; } table.outcomes td.num { width: 4rem; } meter { width: 100%; }
        .bar { height: .6rem; background: var(--accent); border-radius: 3px; min-width: 2px; }
        .actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; margin: 0; }
        dt { color: var(--muted); } dd { margin: 0; word-break: break-word; }
        @media (max-width: 600px) { main { padding: .6rem; } h1 { font-size: 1.25rem; } dl { grid-template-columns: 1fr; } dt { margin-top: .4rem; } }
        """
}
