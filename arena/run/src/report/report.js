// The script of report.html: summary tables from the embedded data, and the game viewer.
// No network, no libraries. Any error is written into the page (#status), so a test in a
// headless browser can see it in the DOM.
(function () {
  "use strict";
  var status = document.getElementById("status");
  function fail(message) {
    status.setAttribute("data-status", "error");
    status.textContent = "script error: " + message;
  }
  window.addEventListener("error", function (e) {
    fail(e.message || String(e));
  });

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    }
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fixed(x, digits) {
    return Number(x).toFixed(digits);
  }

  // One table per pairing: its rows of summary.csv, every column kept in data- attributes.
  function summaries(data) {
    var tables = document.querySelectorAll("table.summary");
    var heads = ["case", "games", "W-D-L", "score", "95% CI (games)", "95% CI (pairs)", "pairs 0 ¼ ½ ¾ 1", "Elo (pairs)", "LOS", "forfeits"];
    for (var t = 0; t < tables.length; t++) {
      var table = tables[t];
      var m = Number(table.getAttribute("data-matchup"));
      var pairing = data.pairings[m];
      var head = el("tr");
      heads.forEach(function (h) { head.appendChild(el("th", {}, h)); });
      table.appendChild(el("thead")).appendChild(head);
      var body = table.appendChild(el("tbody"));
      data.rows.forEach(function (row) {
        if (row.agent_a !== pairing[0] || row.agent_b !== pairing[1]) return;
        var attrs = { "class": "srow" };
        data.columns.forEach(function (c) { attrs["data-" + c] = String(row[c]); });
        var tr = el("tr", attrs);
        var significant = row.games > 0 && (row.pair_low > 50 || row.pair_high < 50);
        var cells = [
          row["case"],
          row.games,
          row.wins + "-" + row.draws + "-" + row.losses,
          fixed(row.score, 1) + (significant ? " *" : ""),
          "[" + fixed(row.ci_low, 1) + ", " + fixed(row.ci_high, 1) + "]",
          "[" + fixed(row.pair_low, 1) + ", " + fixed(row.pair_high, 1) + "]",
          [row.ptnml_0, row.ptnml_1, row.ptnml_2, row.ptnml_3, row.ptnml_4].join(" "),
          (row.elo >= 0 ? "+" : "") + fixed(row.elo, 1) + " [" + fixed(row.elo_low, 1) + ", " + fixed(row.elo_high, 1) + "]",
          fixed(100 * row.los, 1) + "%",
          row.forfeits_a + " / " + row.forfeits_b
        ];
        cells.forEach(function (c, i) {
          tr.appendChild(el("td", (i === 3 || i === 5) && significant ? { "class": "sig" } : {}, String(c)));
        });
        body.appendChild(tr);
      });
      var legend = el("caption", {}, "* the 95% interval from the game pairs (pentanomial, as Elo and LOS) excludes 50 per 100");
      table.insertBefore(legend, table.firstChild);
    }
  }

  // A Quarto board drawn from the replay's text: 4 rows of hex piece numbers or dots.
  // Piece bits: 1 tall, 2 round, 4 solid, 8 dark.
  function quartoPiece(svg, n, cx, cy) {
    var NS = "http://www.w3.org/2000/svg";
    var r = n & 1 ? 17 : 11;
    var fill = n & 8 ? "#6b3e1f" : "#f0d9a8";
    var shape = document.createElementNS(NS, n & 2 ? "circle" : "rect");
    if (n & 2) {
      shape.setAttribute("cx", cx); shape.setAttribute("cy", cy); shape.setAttribute("r", r);
    } else {
      shape.setAttribute("x", cx - r); shape.setAttribute("y", cy - r);
      shape.setAttribute("width", 2 * r); shape.setAttribute("height", 2 * r);
    }
    shape.setAttribute("fill", fill);
    shape.setAttribute("stroke", "#333");
    svg.appendChild(shape);
    if (!(n & 4)) {
      var hole = document.createElementNS(NS, "circle");
      hole.setAttribute("cx", cx); hole.setAttribute("cy", cy); hole.setAttribute("r", r / 2.5);
      hole.setAttribute("fill", "#fff"); hole.setAttribute("stroke", "#333");
      svg.appendChild(hole);
    }
  }

  // The drawer of each board the task names (`Task::board`), by kind.
  var DRAWERS = { "piece-grid": quartoBoard, "domino-line": dominoBoard };

  function quartoBoard(text) {
    var lines = text.split("\n");
    var rows = lines.slice(0, 4).map(function (l) { return l.trim().split(/\s+/); });
    if (rows.length < 4 || rows.some(function (r) { return r.length !== 4; })) return null;
    var NS = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("width", 320); svg.setAttribute("height", 200);
    svg.setAttribute("class", "quarto-board");
    for (var i = 0; i < 4; i++) {
      for (var j = 0; j < 4; j++) {
        var sq = document.createElementNS(NS, "rect");
        sq.setAttribute("x", 4 + 46 * j); sq.setAttribute("y", 4 + 46 * i);
        sq.setAttribute("width", 44); sq.setAttribute("height", 44);
        sq.setAttribute("fill", "#e8e8e8"); sq.setAttribute("stroke", "#aaa");
        svg.appendChild(sq);
        var cell = rows[i][j];
        if (cell !== ".") quartoPiece(svg, parseInt(cell, 16), 26 + 46 * j, 26 + 46 * i);
      }
    }
    var hand = /in hand: ([0-9a-f])\b/.exec(text);
    var label = document.createElementNS(NS, "text");
    label.setAttribute("x", 200); label.setAttribute("y", 30);
    label.textContent = "in hand";
    svg.appendChild(label);
    if (hand) quartoPiece(svg, parseInt(hand[1], 16), 230, 70);
    return svg;
  }

  // A Dominoes position drawn from the replay's text: the line, both hands (the side to
  // move marked), the stock.
  function dominoBoard(drawing) {
    var NS = "http://www.w3.org/2000/svg";
    var rows = [];
    var stock = "";
    drawing.split("\n").forEach(function (l) {
      var line = /^line:\s+(.*)$/.exec(l);
      var hand = /^([* ])([AB]):\s+(.*?)\s+\((\d+) pips\)$/.exec(l);
      var st = /^stock: (\d+)/.exec(l);
      if (line) rows.push({ label: "line", bold: false, tiles: line[1].split(/\s+/) });
      if (hand) rows.push({ label: hand[2] + " (" + hand[4] + ")", bold: hand[1] === "*", tiles: hand[3].split(/\s+/) });
      if (st) stock = "stock: " + st[1];
    });
    if (rows.length === 0) return null;
    var widest = Math.max.apply(null, rows.map(function (r) { return r.tiles.length; }));
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("class", "domino-board");
    svg.setAttribute("width", 90 + 52 * widest);
    svg.setAttribute("height", 40 * rows.length + 30);
    function write(x, y, t, bold) {
      var e = document.createElementNS(NS, "text");
      e.setAttribute("x", x); e.setAttribute("y", y);
      if (bold) e.setAttribute("font-weight", "700");
      e.textContent = t;
      svg.appendChild(e);
    }
    rows.forEach(function (r, i) {
      var y = 10 + 40 * i;
      write(4, y + 18, r.label + (r.bold ? " to move" : ""), r.bold);
      r.tiles.forEach(function (t, j) {
        var ends = t.split("-");
        if (ends.length !== 2) return;
        var x = 86 + 52 * j;
        var tile = document.createElementNS(NS, "rect");
        tile.setAttribute("x", x); tile.setAttribute("y", y);
        tile.setAttribute("width", 48); tile.setAttribute("height", 26); tile.setAttribute("rx", 4);
        tile.setAttribute("fill", "#fffdf5"); tile.setAttribute("stroke", "#333");
        svg.appendChild(tile);
        var bar = document.createElementNS(NS, "line");
        bar.setAttribute("x1", x + 24); bar.setAttribute("x2", x + 24);
        bar.setAttribute("y1", y + 3); bar.setAttribute("y2", y + 23); bar.setAttribute("stroke", "#333");
        svg.appendChild(bar);
        write(x + 8, y + 18, ends[0], true);
        write(x + 32, y + 18, ends[1], true);
      });
    });
    write(4, 10 + 40 * rows.length + 12, stock, false);
    return svg;
  }

  function viewer(data) {
    var pick = document.getElementById("pick");
    var number = document.getElementById("number");
    var note = document.getElementById("game-note");
    var ply = document.getElementById("ply");
    var caption = document.getElementById("caption");
    var frame = document.getElementById("frame");
    var board = document.getElementById("board");
    var byGame = {};
    data.replays.forEach(function (r, i) {
      byGame[r.game] = r;
      var g = gameNote(r.game);
      pick.appendChild(el("option", { value: String(r.game) }, "game " + r.game + (g ? ": " + g : "")));
    });
    var current = null;

    function gameNote(index) {
      var row = null;
      for (var i = 0; i < data.games.length; i++) {
        if (data.games[i][0] === index) { row = data.games[i]; break; }
      }
      if (!row) return "";
      var p = data.pairings[row[1]];
      var score = row[3] === 1 ? "1-0" : row[3] === 0 ? "0-1" : "½-½";
      return "case " + data.cases[row[2]] + ", " + p[0] + " vs " + p[1] + " " + score + " (" + row[4] +
        (row[5] ? ", forfeit by " + (row[5] === "a" ? p[0] : p[1]) : "") + ", " + row[6] + " plies)";
    }

    function show(k) {
      if (!current) return;
      k = Math.max(0, Math.min(current.frames.length - 1, k));
      ply.value = String(k);
      var f = current.frames[k] || ["", ""];
      caption.textContent = (k + 1) + "/" + current.frames.length + ": " + f[0];
      frame.textContent = f[1] + (k === current.frames.length - 1 ? "\n\n" + current.result : "");
      board.textContent = "";
      var draw = DRAWERS[data.board];
      var svg = draw ? draw(f[1]) : null;
      if (svg) board.appendChild(svg);
    }

    function open(index) {
      var r = byGame[index];
      var g = gameNote(index);
      if (!r) {
        current = null;
        ply.max = "0";
        caption.textContent = "";
        board.textContent = "";
        frame.textContent = "game " + index + " is not embedded in this page; replay it with `arena replay " + data.dir + " -n " + index + "`";
        note.textContent = g ? "game " + index + ": " + g : (index < data.games_total ? "" : "no game " + index + " in this run");
        return;
      }
      current = r;
      pick.value = String(index);
      note.textContent = r.title;
      ply.max = String(r.frames.length - 1);
      show(0);
    }

    pick.addEventListener("change", function () { open(Number(pick.value)); });
    number.addEventListener("change", function () { open(Number(number.value)); });
    ply.addEventListener("input", function () { show(Number(ply.value)); });
    document.getElementById("first").addEventListener("click", function () { show(0); });
    document.getElementById("prev").addEventListener("click", function () { show(Number(ply.value) - 1); });
    document.getElementById("next").addEventListener("click", function () { show(Number(ply.value) + 1); });
    document.getElementById("last").addEventListener("click", function () { show(1e9); });
    document.addEventListener("keydown", function (e) {
      if (e.key === "ArrowRight") show(Number(ply.value) + 1);
      if (e.key === "ArrowLeft") show(Number(ply.value) - 1);
    });
    var links = document.querySelectorAll("a.game-link");
    for (var i = 0; i < links.length; i++) {
      links[i].addEventListener("click", function (e) { open(Number(e.target.getAttribute("data-game"))); });
    }
    if (data.replays.length > 0) {
      open(data.replays[0].game);
      // Step to the end once, so a broken frame would fail here, in the test's browser.
      show(1e9);
      show(0);
    }
  }

  try {
    var data = JSON.parse(document.getElementById("arena-data").textContent);
    summaries(data);
    viewer(data);
    if (status.getAttribute("data-status") !== "error") {
      status.setAttribute("data-status", "ok");
      status.textContent = "";
      status.appendChild(document.createTextNode(
        data.rows.length + " summary rows, " + data.replays.length + " games to step through."));
    }
  } catch (e) {
    fail((e && e.stack) || String(e));
  }
})();
