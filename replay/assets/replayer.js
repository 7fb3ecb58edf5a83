// paipu hand replayer: draws the frames that replay/html.py computed (it knows no rule).
// Every string from the log is written with textContent, never as markup.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("hand-data").textContent);
  var F = D.frames, LAST = F.length - 1;
  var state = { step: 0, view: "all", lang: D.lang === "zh" ? "zh" : "en" };
  var RED = { h: true, d: true }, SUIT = { s: "♠", h: "♥", d: "♦", c: "♣" };
  var wild = {};
  D.wild.forEach(function (c) { wild[c] = true; });

  function ui(key) { return D.ui[state.lang][key]; }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function num(x) {
    if (x === null || x === undefined) return "–";
    if (typeof x !== "number") return String(x);
    return new Intl.NumberFormat(state.lang === "zh" ? "zh-CN" : "en-US", { maximumFractionDigits: 2 }).format(x);
  }
  function signed(x) {
    if (typeof x !== "number") return num(x);
    return (x > 0 ? "+" : "") + num(x);
  }

  function cardEl(name) {
    var e = el("span", "card");
    e.dataset.card = name;
    if (name === "SJ" || name === "BJ") {
      e.classList.add("joker", name === "BJ" ? "big" : "small");
      var zh = state.lang === "zh";
      add(e, el("span", zh ? null : "word", name === "BJ" ? (zh ? "大" : "BIG") : (zh ? "小" : "SML")));
      add(e, el("span", zh ? null : "word", zh ? "王" : "JKR"));
      e.title = name === "BJ" ? (zh ? "大王" : "big joker") : (zh ? "小王" : "small joker");
    } else {
      var rank = name[0], suit = name[1];
      e.classList.add(RED[suit] ? "red" : "black");
      add(e, el("span", null, rank === "T" ? "10" : rank));
      add(e, el("span", null, SUIT[suit] || suit));
      if (D.level && (rank === D.level || (D.level === "10" && rank === "T"))) e.classList.add("level");
    }
    if (wild[name]) { e.classList.add("wild"); e.title = (e.title ? e.title + " · " : "") + ui("wild"); }
    return e;
  }
  // a card in words, for the move log: its rank (ten as 10) and suit symbol, the jokers named
  function cardText(name) {
    var zh = state.lang === "zh";
    if (name === "BJ") return zh ? "大王" : "BJ";
    if (name === "SJ") return zh ? "小王" : "SJ";
    if (name.length !== 2 || !SUIT[name[1]]) return name;  // a token that is no card, as the record has it
    return (name[0] === "T" ? "10" : name[0]) + SUIT[name[1]];
  }
  function cardsEl(names, cls) {
    var box = el("div", cls || "cards");
    names.forEach(function (c) { add(box, cardEl(c)); });
    return box;
  }
  // a name cut for display (as replay/html.py cuts it in the frames' words); the whole name on hover
  function clip(text) {
    var chars = Array.from(String(text));
    return chars.length <= D.name_chars ? String(text) : chars.slice(0, D.name_chars - 1).join("") + "…";
  }
  function nameEl(tag, cls, text) {
    var e = el(tag, cls, clip(text));
    if (clip(text) !== String(text)) e.title = String(text);
    return e;
  }
  function seatLabel(s) { return ui("seat") + " " + s + " · " + clip(D.players[s]); }
  function role(s, f) {
    if (D.teams) return ui("team") + " " + D.teams[s];
    if (f.landlord === null || f.landlord === undefined) return null;
    return s === f.landlord ? ui("landlord") : ui("farmer");
  }
  function visible(s, f) {
    return state.view === "all" || Number(state.view) === s || f.shown.indexOf(s) >= 0;
  }

  function header(app) {
    var h = add(app, el("header"));
    var title = add(h, el("h1", null, D.id + " · " + (D.game_zh ? D.game_zh + " " : "") + D.game + "/" + D.variant));
    if (D.level) add(title, el("span", "badge level", ui("level") + " " + D.level));
    var bits = [D.time, D.room[state.lang]].filter(function (x) { return x; });
    if (bits.length) add(h, el("div", "meta", bits.join(" · ")));
  }

  function controls(app, f) {
    var c = add(app, el("nav", "controls"));
    function button(id, text, to) {
      var b = add(c, el("button", null, text));
      b.id = id; b.type = "button";
      b.addEventListener("click", function () { go(to()); });
      return b;
    }
    button("first", "« " + ui("first"), function () { return 0; }).disabled = state.step === 0;
    button("back", "◀ " + ui("back"), function () { return state.step - 1; }).disabled = state.step === 0;
    var where = add(c, el("span", "where"));
    where.id = "where";
    where.textContent = state.lang === "zh" ? ui("step") + " " + state.step + " " + ui("of") + " " + LAST + " 步"
      : ui("step") + " " + state.step + " " + ui("of") + " " + LAST;
    button("forward", ui("forward") + " ▶", function () { return state.step + 1; }).disabled = state.step === LAST;
    button("last", ui("last") + " »", function () { return LAST; }).disabled = state.step === LAST;
    var tricks = add(c, el("select"));
    tricks.id = "trick";
    tricks.setAttribute("aria-label", ui("jump"));
    add(tricks, el("option", null, ui("jump") + "…")).value = "";
    D.tricks.forEach(function (frame, k) {
      var o = add(tricks, el("option", null, ui("trick") + " " + (k + 1)));
      o.value = String(frame);
      if (f.trick === k + 1) o.selected = true;
    });
    tricks.addEventListener("change", function () { if (tricks.value !== "") go(Number(tricks.value)); });
    var view = add(c, el("select"));
    view.id = "view";
    view.setAttribute("aria-label", ui("view"));
    add(view, el("option", null, ui("all_open"))).value = "all";
    D.players.forEach(function (p, s) {
      add(view, el("option", null, ui("seat_view").replace("{s}", s + " " + clip(p)))).value = String(s);
    });
    view.value = state.view;
    view.addEventListener("change", function () { state.view = view.value; render(); });
    var lang = add(c, el("button", null, ui("lang")));
    lang.id = "lang"; lang.type = "button";
    lang.addEventListener("click", function () { state.lang = state.lang === "zh" ? "en" : "zh"; render(); });
    add(c, el("span", "keys", ui("keys")));
  }

  function seats(app, f) {
    var box = add(app, el("section", "seats"));
    box.id = "seats";
    D.players.forEach(function (p, s) {
      var d = add(box, el("div", "seat"));
      d.dataset.seat = String(s);
      if (f.seat === s) d.classList.add("acting");
      var who = add(d, el("div", "who", seatLabel(s)));
      if (clip(p) !== p) who.title = p;
      var r = role(s, f);
      if (r) add(who, el("span", "badge role" + (f.landlord === s ? " landlord" : ""), r));
      add(who, el("span", "badge", ui("left") + " " + f.left[s]));
      var place = f.out.indexOf(s);
      // the last seat of a Guandan hand is placed without going out: its place, not "out"
      if (place >= 0) add(who, el("span", "badge out", (f.left[s] === 0 ? ui("out") : ui("place")) + " #" + (place + 1)));
      if (f.turn === s && place < 0 && state.step < LAST) add(who, el("span", "badge turn", "▶"));
      if (visible(s, f)) {
        add(d, cardsEl(f.hands[s], "hand"));
      } else {
        var hidden = add(d, el("div", "hand hidden-count", "[" + f.left[s] + " " + ui("hidden") + "]"));
        hidden.dataset.hidden = "1";
      }
      var played = add(d, el("div", "played"));
      var t = f.table[s];
      if (t === "pass") played.textContent = ui("pass");
      else if (t) add(played, cardsEl(t));
    });
    if (D.bottom) {
      var b = add(app, el("div", "bottom"));
      b.id = "bottom";
      add(b, el("span", null, ui("bottom") + ": "));
      if (state.view === "all" || (f.landlord !== null && f.landlord !== undefined)) add(b, cardsEl(D.bottom));
      else add(b, el("span", "hidden-count", "[" + D.bottom.length + " " + ui("hidden") + "]"));
    }
  }

  function now(app, f) {
    var n = add(app, el("section", "now" + (f.bomb ? " bomb" : "")));
    n.id = "now";
    if (f.act) {
      var a = add(n, el("div", "act", f.act[state.lang]));
      if (f.cards && f.cards.length) add(a, cardsEl(f.cards));
    } else {
      add(n, el("div", "act", ui("deal")));
    }
    f.notes.forEach(function (note) { add(n, el("div", "note " + note.kind, note[state.lang])); });
    reviewBox(n, f);
    var v = f.violation;
    if (v) {
      var box = add(n, el("div", "violation"));
      box.id = "violation";
      add(box, el("strong", null, ui("violation") + " "));
      add(box, el("code", null, v.code));
      var zh = state.lang === "zh";
      if (zh && v.explain_zh) add(box, document.createTextNode("（" + v.explain_zh + "）"));
      // the action's step on this page (frame k shows action k - 1), as the step counter counts
      add(box, document.createTextNode((v.action !== null ? " " + ui("at_step").replace("{k}", v.action + 1) : "") +
        ": " + (zh ? v.message_zh : v.message_en)));
    }
  }

  // the review (paipu review --html): the step's options as bars of their win probability
  var R = D.review || null;
  function rv(key) { return R.ui[state.lang][key]; }
  function pct(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(1); }
  function reviewOf(f) { return R && f.i !== null && f.i !== undefined ? R.steps[String(f.i)] || null : null; }
  function reviewBox(n, f) {
    var r = reviewOf(f);
    if (!r) return;
    var box = add(n, el("div", "review"));
    box.id = "review";
    var head = add(box, el("div", "loss", rv("loss") + " " + (r.loss === null ? "–" : r.loss.toFixed(1)) +
      (r.loss_se === null ? "" : " ±" + r.loss_se.toFixed(1)) + " · " + rv("deals").replace("{n}", r.samples)));
    if (r.flag) add(head, el("span", "flag " + r.flag, rv(r.flag)));
    r.shown.forEach(function (o) {
      var row = add(box, el("div", "opt" + (o.chosen ? " chosen" : "")));
      add(row, el("span", "label", (o.chosen ? "▸ " : "") + o.label[state.lang]));
      var bar = add(row, el("span", "bar"));
      var fill = add(bar, el("span", "fill"));
      fill.style.width = (o.win === null ? 0 : Math.max(0, Math.min(100, 100 * o.win))) + "%";
      add(row, el("span", "val", rv("win") + " " + pct(o.win) + (o.win_se === null ? "" : " ±" + pct(o.win_se)) +
        " · " + rv("points") + " " + signed(o.points === null ? null : Math.round(o.points * 100) / 100)));
    });
    if (r.options > r.shown.length) add(box, el("div", "more", rv("more").replace("{n}", r.options - r.shown.length)));
  }
  function reviewSummary(app) {
    if (!R) return;
    var sec = add(app, el("section", "review-summary"));
    sec.id = "review-summary";
    add(sec, el("h2", null, rv("summary")));
    var t = add(sec, el("table"));
    var head = add(t, el("tr"));
    [rv("seat"), ui("name"), rv("decisions"), rv("best"), rv("mean_loss"), rv("mistakes"), rv("blunders")]
      .forEach(function (h) { add(head, el("th", null, h)); });
    R.seats.forEach(function (x) {
      var row = add(t, el("tr"));
      add(row, el("td", null, x.seat));
      add(row, nameEl("td", "t", x.player));
      add(row, el("td", null, x.decisions));
      add(row, el("td", null, x.matches + (x.match_rate === null ? "" : " (" + pct(x.match_rate) + "%)")));
      add(row, el("td", null, x.mean_loss === null ? "–" : x.mean_loss.toFixed(1)));
      add(row, el("td", null, x.mistakes));
      add(row, el("td", null, x.blunders));
    });
  }

  function result(app) {
    if (state.step !== LAST || !D.result) return;
    var r = add(app, el("section", "result"));
    r.id = "result";
    add(r, el("h2", null, ui("result")));
    var t = add(r, el("table"));
    var head = add(t, el("tr"));
    var hasX = D.result.seats.some(function (x) { return x.xiqian !== null; });
    var hasC = D.result.seats.some(function (x) { return x.coins !== null; });
    [ui("seat"), ui("name"), ui("role"), ui("place"), ui("score")].concat(hasX ? [ui("xiqian")] : [])
      .concat(hasC ? [ui("coins")] : []).forEach(function (h) { add(head, el("th", null, h)); });
    var f = F[LAST];
    D.result.seats.forEach(function (x) {
      var row = add(t, el("tr"));
      add(row, el("td", null, x.seat));
      add(row, nameEl("td", "t", D.players[x.seat]));
      add(row, el("td", "t", role(x.seat, f) || ""));
      add(row, el("td", null, x.place === null ? "–" : x.place));
      add(row, el("td", null, signed(x.score)));
      if (hasX) add(row, el("td", null, signed(x.xiqian)));
      if (hasC) add(row, el("td", null, signed(x.coins)));
    });
    var ul = add(r, el("ul"));
    D.result.fields.forEach(function (x) {
      var value = typeof x.value === "number" ? num(x.value) : typeof x.value === "object" ? x.value[state.lang] : x.value;
      add(ul, el("li", null, x[state.lang] + ": " + value));
    });
  }

  function log(app) {
    add(app, el("h2", null, ui("log")));
    var box = add(app, el("div", "log"));
    var ol = add(box, el("ol"));
    ol.id = "log";
    F.forEach(function (f, k) {
      if (k === 0) return;
      var li = add(ol, el("li", null, (f.act ? f.act[state.lang] : "") + (f.cards ? "  " + f.cards.map(cardText).join(" ") : "")));
      li.value = k;
      if (k === state.step) li.classList.add("current");
      if (f.bomb) li.classList.add("bomb");
      if (f.violation) li.classList.add("bad");
      var r = reviewOf(f);
      if (r && r.flag) { li.classList.add("flag-" + r.flag); add(li, el("span", "flag " + r.flag, rv(r.flag))); }
      li.addEventListener("click", function () { go(k); });
    });
    var cur = ol.querySelector("li.current");
    if (cur) box.scrollTop = Math.max(0, cur.offsetTop - box.clientHeight / 2);
  }

  function render() {
    var app = document.getElementById("app");
    while (app.firstChild) app.removeChild(app.firstChild);
    document.documentElement.lang = state.lang;
    var f = F[state.step];
    header(app);
    controls(app, f);
    seats(app, f);
    now(app, f);
    result(app);
    log(app);
    reviewSummary(app);
    document.body.dataset.step = String(state.step);
    document.body.dataset.lang = state.lang;
  }
  function go(k) {
    state.step = Math.max(0, Math.min(LAST, k));
    render();
  }
  function trickStep(dir) {
    var starts = D.tricks;
    if (dir > 0) { for (var i = 0; i < starts.length; i++) if (starts[i] > state.step) return go(starts[i]); return go(LAST); }
    for (var j = starts.length - 1; j >= 0; j--) if (starts[j] < state.step) return go(starts[j]);
    return go(0);
  }
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.tagName === "SELECT") return;
    var keys = { ArrowRight: 1, ArrowLeft: -1 };
    if (e.key in keys) { go(state.step + keys[e.key]); e.preventDefault(); }
    else if (e.key === "Home") { go(0); e.preventDefault(); }
    else if (e.key === "End") { go(LAST); e.preventDefault(); }
    else if (e.key === "PageDown") { trickStep(1); e.preventDefault(); }
    else if (e.key === "PageUp") { trickStep(-1); e.preventDefault(); }
  });
  render();
})();
