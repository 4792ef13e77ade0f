// The league page: every element is built with textContent, never markup from data,
// so a bot's name shows as text whatever it holds.
"use strict";
(function () {
  const token = new URLSearchParams(location.search).get("token");
  const $ = (id) => document.getElementById(id);
  const status = $("status");

  function url(path, params) {
    const q = new URLSearchParams(params || {});
    if (token) q.set("token", token);
    const s = q.toString();
    return path + (s ? "?" + s : "");
  }
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function row(cells) {
    const tr = document.createElement("tr");
    for (const c of cells) tr.appendChild(c instanceof Node ? c : el("td", c));
    return tr;
  }
  function fill(tbody, rows) {
    tbody.replaceChildren(...rows);
  }
  function signed(x) {
    return (x >= 0 ? "+" : "") + x.toFixed(1);
  }
  function filters() {
    const f = {};
    for (const k of ["case", "seat", "bot"]) {
      const v = $("f-" + k).value;
      if (v) f[k] = v;
    }
    return f;
  }
  function options(select, values) {
    const keep = select.value;
    const have = Array.from(select.options).slice(1).map((o) => o.value);
    if (have.length === values.length && have.every((v, i) => v === values[i])) return;
    select.replaceChildren(select.options[0]);
    for (const v of values) {
      const o = el("option", v);
      o.value = v;
      select.appendChild(o);
    }
    select.value = values.includes(keep) ? keep : "";
  }

  function standings(s) {
    const lo = Math.min(-50, ...s.rows.map((r) => r.elo_low));
    const hi = Math.max(50, ...s.rows.map((r) => r.elo_high));
    const x = (e) => (100 * (e - lo)) / (hi - lo);
    fill($("standings").tBodies[0], s.rows.map((r) => {
      const bar = el("span", null, "bar");
      const span = el("span");
      span.style.left = x(r.elo_low) + "%";
      span.style.width = Math.max(1, x(r.elo_high) - x(r.elo_low)) + "%";
      const dot = el("i");
      dot.style.left = x(r.elo) + "%";
      bar.append(span, dot);
      const cell = el("td");
      cell.appendChild(bar);
      return row([r.rank, el("td", r.bot, "name"), el("td", r.role, "name"),
        el("td", r.state, "name " + r.state), r.games, r.score.toFixed(1), signed(r.elo),
        "[" + signed(r.elo_low) + ", " + signed(r.elo_high) + "]", cell,
        el("td", forfeits(r.forfeits), "name"), stderr(r)]);
    }));
    // Retired bots left the ratings; their state and the end of their log say why (the
    // log comes escaped from the server and goes in as text).
    fill($("retired").tBodies[0], (s.retired || []).map((r) => {
      const log = el("td", null, "name");
      log.appendChild(el("pre", r.log, "log"));
      return row([el("td", r.bot, "name"),
        el("td", r.state + (r.archived ? ", archived" : ""), "name " + r.state),
        el("td", forfeits(r.forfeits), "name"), log]);
    }));
  }

  // An external bot's latest stderr lines (escaped by the server, set as text), folded;
  // a fold stays open across the redraws of each event.
  const stderrOpen = new Set();
  function stderr(r) {
    const td = el("td", null, "name");
    if (!r.stderr || !r.stderr.lines.length) return td;
    const fold = el("details");
    fold.open = stderrOpen.has(r.bot);
    fold.addEventListener("toggle", () => {
      if (fold.open) stderrOpen.add(r.bot);
      else stderrOpen.delete(r.bot);
    });
    const summary = el("summary", "last " + r.stderr.lines.length + " lines");
    summary.title = r.stderr.log;
    fold.append(summary, el("pre", r.stderr.log + "\n" + r.stderr.lines.join("\n"), "log"));
    td.appendChild(fold);
    return td;
  }

  // Games lost without finishing, by kind: "3 (timeout 2, crash 1)", or "none".
  function forfeits(kinds) {
    const entries = Object.entries(kinds || {});
    if (!entries.length) return "none";
    const total = entries.reduce((n, [, k]) => n + k, 0);
    return total + " (" + entries.map(([kind, k]) => kind + " " + k).join(", ") + ")";
  }

  function path(points, lower, upper) {
    const ns = "http://www.w3.org/2000/svg";
    const w = 180, h = 40;
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", w);
    svg.setAttribute("height", h);
    const maxX = Math.max(1, ...points.map((p) => p[0]));
    const span = Math.max(upper, -lower, ...points.map((p) => Math.abs(p[1])));
    const y = (v) => h / 2 - (v / span) * (h / 2 - 2);
    for (const b of [lower, upper]) {
      const l = document.createElementNS(ns, "line");
      l.setAttribute("x1", 0); l.setAttribute("x2", w);
      l.setAttribute("y1", y(b)); l.setAttribute("y2", y(b));
      l.setAttribute("stroke", "#bbb"); l.setAttribute("stroke-dasharray", "3 3");
      svg.appendChild(l);
    }
    if (points.length) {
      const p = document.createElementNS(ns, "polyline");
      p.setAttribute("points", points.map((q) => ((q[0] / maxX) * (w - 2)).toFixed(1) + "," + y(q[1]).toFixed(1)).join(" "));
      p.setAttribute("fill", "none");
      p.setAttribute("stroke", "#3060c0");
      svg.appendChild(p);
    }
    const cell = el("td", null, "name");
    cell.appendChild(svg);
    return cell;
  }

  // Rating over time: one line per bot with snapshots (x: time since the league's first
  // snapshot; y: Elo), its name in the legend as text.
  const palette = ["#3060c0", "#d04a2a", "#2a9d4a", "#8a4fc0", "#c08a00", "#1a9bb0",
    "#c0407a", "#6b6b6b", "#7a9a20", "#a05a2c"];
  function nice(x) {
    const p = Math.pow(10, Math.floor(Math.log10(x)));
    const m = x / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function chart(r) {
    const ns = "http://www.w3.org/2000/svg";
    const svgEl = (tag, attrs, text) => {
      const e = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text !== undefined) e.textContent = String(text);
      return e;
    };
    const lines = (r && r.bots) || [];
    const all = lines.flatMap((l) => l.points);
    $("chart-legend").replaceChildren(...lines.map((l, i) => {
      const li = el("li");
      const swatch = el("i");
      swatch.style.background = palette[i % palette.length];
      li.append(swatch, document.createTextNode(l.name));
      return li;
    }));
    if (!all.length) {
      $("chart").replaceChildren(el("p", "no snapshot yet: the chart starts with the league's first games"));
      return;
    }
    const w = 720, h = 240, left = 48, right = 14, top = 10, bottom = 34;
    const since = r.since;
    const maxT = Math.max(1, ...all.map((p) => p[0] - since));
    let lo = Math.min(...all.map((p) => p[1])), hi = Math.max(...all.map((p) => p[1]));
    if (hi - lo < 20) { const mid = (hi + lo) / 2; lo = mid - 10; hi = mid + 10; }
    const step = nice((hi - lo) / 4);
    lo = Math.floor(lo / step) * step;
    hi = Math.ceil(hi / step) * step;
    const x = (t) => left + (t / maxT) * (w - left - right);
    const y = (e) => top + ((hi - e) / (hi - lo)) * (h - top - bottom);
    const svg = svgEl("svg", { width: w, height: h, viewBox: "0 0 " + w + " " + h });
    for (let k = 0; lo + k * step <= hi + step / 2; k++) {
      const v = lo + k * step;
      svg.append(svgEl("line", { x1: left, x2: w - right, y1: y(v), y2: y(v), stroke: v === 0 ? "#999" : "#e4e4e4" }),
        svgEl("text", { x: left - 4, y: y(v) + 4, "text-anchor": "end" }, (v > 0 ? "+" : "") + Math.round(v)));
    }
    const [unit, name] = maxT < 120 ? [1, "s"] : maxT < 7200 ? [60, "min"] : [3600, "h"];
    const xstep = nice(maxT / unit / 5) * unit;
    for (let k = 0; k * xstep <= maxT + 1e-9; k++) {
      const t = k * xstep;
      svg.append(svgEl("line", { x1: x(t), x2: x(t), y1: h - bottom, y2: h - bottom + 4, stroke: "#999" }),
        svgEl("text", { x: x(t), y: h - bottom + 15, "text-anchor": "middle" }, +(t / unit).toFixed(1) + " " + name));
    }
    svg.append(svgEl("line", { x1: left, x2: w - right, y1: h - bottom, y2: h - bottom, stroke: "#999" }),
      svgEl("text", { x: w - right, y: h - 2, "text-anchor": "end" }, "time since the league's first snapshot"));
    lines.forEach((l, i) => {
      const color = palette[i % palette.length];
      const line = svgEl("polyline", {
        points: l.points.map((p) => x(p[0] - since).toFixed(1) + "," + y(p[1]).toFixed(1)).join(" "),
        fill: "none", stroke: color, "stroke-width": 1.5,
      });
      line.dataset.bot = l.name;
      line.append(svgEl("title", {}, l.name));
      const end = l.points[l.points.length - 1];
      svg.append(line, svgEl("circle", { cx: x(end[0] - since), cy: y(end[1]), r: 2.5, fill: color }));
    });
    $("chart").replaceChildren(svg);
  }


  function duration(secs) {
    if (secs < 90) return secs.toFixed(0) + " s";
    if (secs < 5400) return (secs / 60).toFixed(0) + " min";
    return (secs / 3600).toFixed(1) + " h";
  }

  // Each test: its bot against its base at its own bounds, the LLR and its path, the
  // Elo interval over what it was last against, its speed and the time to a bound.
  function tests(s) {
    const t = s.sprt;
    $("sprt").textContent = "league bounds: logistic Elo " + t.elo0 + " vs " + t.elo1 + ", alpha " +
      t.alpha + ", beta " + t.beta + "; LLR bounds [" + t.lower.toFixed(2) + ", " + t.upper.toFixed(2) +
      "]; strongest benchmark: " + (t.against === null ? "none yet" : t.against);
    fill($("tests").tBodies[0], s.tests.map((c) => row([
      c.id, el("td", c.bot, "name"), el("td", c.base_said, "name"),
      el("td", c.elo0 + " vs " + c.elo1, "name"),
      el("td", c.state + (c.why ? " (" + c.why + ")" : ""), "name verdict " + c.state),
      c.llr === null ? "-" : c.llr.toFixed(2) + " [" + c.lower.toFixed(2) + ", " + c.upper.toFixed(2) + "]",
      c.pairs,
      c.elo === null || c.pairs === 0 ? "-" :
        signed(c.elo.elo) + " [" + signed(c.elo.lower) + ", " + signed(c.elo.upper) + "]",
      c.games_per_s === null ? "-" : c.games_per_s.toFixed(0),
      c.eta_s === null ? "-" : duration(c.eta_s),
      path(c.path.map((p) => [p.pairs, p.llr]), c.lower, c.upper)])));
  }

  function heat(td, score) {
    const a = Math.min(1, Math.abs(score - 50) / 50);
    td.style.background = score >= 50 ? "rgba(30,140,60," + a + ")" : "rgba(190,30,40," + a + ")";
  }

  function cross(s) {
    const head = row([el("th", "", "name"), ...s.cross.bots.map((b, i) => el("th", "#" + (i + 1) + " " + b))]);
    $("cross").tHead.replaceChildren(head);
    fill($("cross").tBodies[0], s.cross.cells.map((cells, i) => row([
      el("td", "#" + (i + 1) + " " + s.cross.bots[i], "name"),
      ...cells.map((c) => {
        if (c === null) return el("td", "–");
        const td = el("td", c.score.toFixed(1) + " (" + c.games + ")");
        heat(td, c.score);
        return td;
      })])));
  }

  function heatmap(h) {
    $("heatmap").tHead.replaceChildren(row([el("th", "pair", "name"), ...h.cases.map((c) => el("th", c))]));
    fill($("heatmap").tBodies[0], h.rows.map((r) => row([
      el("td", r.a + " vs " + r.b, "name"),
      ...r.cells.map((c) => {
        if (c === null) return el("td", "–", "heat");
        const td = el("td", c.score.toFixed(0), "heat");
        td.title = c.games + " games";
        heat(td, c.score);
        return td;
      })])));
  }

  function recent(games) {
    fill($("recent").tBodies[0], games.map((g) => {
      const b = el("button", "view");
      b.addEventListener("click", () => view(g));
      const td = el("td");
      td.appendChild(b);
      return row([g.seq, el("td", g.case, "name"), g.deal, g.seat, el("td", g.a, "name"),
        el("td", g.b, "name"), g.score_a, el("td", g.termination + (g.forfeit ? " (" + g.forfeit + ")" : ""), "name"), td]);
    }));
  }

  function view(g) {
    $("viewer").textContent = "replaying…";
    fetch(url("/api/game", { a: g.a_id, b: g.b_id, g: g.g, seat: g.seat }))
      .then((r) => r.json())
      .then((v) => {
        $("viewer-title").textContent = v.error ? "Game viewer" : v.title;
        $("viewer").textContent = v.error ? v.error : v.text;
      })
      .catch((e) => { $("viewer").textContent = String(e); });
  }

  let busy = false, again = false, first = true;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(url("/api/state", filters()))
      .then((r) => r.json())
      .then((v) => {
        if (v.error) throw new Error(v.error);
        const s = v.standings;
        options($("f-case"), s.cases);
        options($("f-bot"), v.bots);
        standings(s);
        chart(v.ratings);
        tests(s);
        cross(s);
        heatmap(v.heatmap);
        recent(v.recent);
        status.textContent = s.game + " league, " + s.cases.length + " cases, seed " + s.seed + ": " +
          s.games + " games (updated " + new Date().toLocaleTimeString() + ")";
        status.dataset.status = "ok";
      })
      .catch((e) => {
        status.textContent = "could not load the league: " + e.message;
        status.dataset.status = "error";
      })
      .finally(() => {
        busy = false;
        if (first) { first = false; live(); }
        if (again) { again = false; refresh(); }
      });
  }

  // Live: the server sends an event on /events whenever the league's database changes,
  // and the page fetches its state again (with its filters). The stream is opened once
  // the first state is drawn, so the page is complete before it waits on anything.
  // Should EventSource be missing or the stream be refused (it then stays CLOSED; a
  // dropped connection is retried by the browser itself), the page polls every two
  // seconds instead. `data-live` on <body> says which ("events" or "polling").
  let polling = null;
  function poll() {
    if (polling === null) polling = setInterval(refresh, 2000);
    document.body.dataset.live = "polling";
  }
  function live() {
    if (typeof EventSource !== "function") { poll(); return; }
    const source = new EventSource(url("/events"));
    source.onopen = () => { document.body.dataset.live = "events"; };
    source.onmessage = () => refresh();
    source.onerror = () => { if (source.readyState === EventSource.CLOSED) poll(); };
  }

  for (const k of ["case", "seat", "bot"]) $("f-" + k).addEventListener("change", refresh);
  refresh();
})();
