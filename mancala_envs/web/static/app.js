// The page of `mancala serve`: it keeps a game as its start and its list of moves, and asks the
// server (mancala_envs/web/app.py) for everything else. No build step, no dependencies.
"use strict";

const S = {
  info: null,
  variant: null, // an entry of info.variants
  start: null, // null, {opening: i} or {state: {...}}
  moves: [],
  sides: ["human", "greedy"],
  seed: 0,
  bottom: 0,
  view: null,
  generation: 0, // bumped by every new game, undo or replay step: stale agent moves are dropped
  mode: "play",
  replay: null, // {moves, ply, startPly, plies}: ply indexes moves; the page shows startPly + ply
  warm: new Set(), // the networks this page has had analysed (their first analysis compiles)
  analysis: new Map(), // "column:agent" -> result, for the position shown
  analysed: "", // the position the analysis is of
  sending: false, // a human's move is on its way to the server
  stepping: false, // a replay step is on its way to the server
};

const $ = (id) => document.getElementById(id);

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(err) {
  $("error").textContent = err ? String(err.message || err) : "";
}

function position() {
  return {game: S.variant.game, params: S.variant.params, start: S.start, moves: S.moves, bottom: S.bottom};
}

function positionKey() {
  return JSON.stringify([S.variant.variant, S.start, S.moves]);
}

function isHuman(seat) {
  return S.mode === "play" && S.sides[seat] === "human";
}

// ------------------------------------------------------------------ the board

function render(view) {
  S.view = view;
  S.moves = view.moves;
  $("board").innerHTML = view.svg;
  $("board").dataset.ply = String(view.state.ply);
  $("status").textContent = view.status;
  const last = view.last_move;
  let text = last ? `last move: player_${last.player} played hole ${last.hole}` : "last move: none";
  const gained = view.captured_now.map((c, p) => (c ? `player_${p} captured ${c}` : "")).filter(Boolean);
  if (gained.length) text += ` (${gained.join(", ")})`;
  $("last-move").textContent = text;
  $("result").textContent = view.over ? `Result: ${view.result}` : "";
  // a solved game's opening: the proven value of the position and of each move (shipped proofs)
  $("proven").textContent = view.proven ? view.proven.text : "";
  $("value-player").textContent = `player_${view.to_move}`;
  if (positionKey() !== S.analysed) {
    showError(null); // a message about another position is stale
    S.analysis.clear();
    S.analysed = positionKey();
    renderAnalysis();
  }
  makeClickable();
  $("undo").disabled = S.mode !== "play" || !S.moves.length || !S.sides.includes("human");
}

function makeClickable() {
  const view = S.view;
  const mine = view && !view.over && isHuman(view.to_move);
  $("board").classList.toggle("human-to-move", Boolean(mine));
  for (const pit of $("board").querySelectorAll(".pit.legal")) {
    if (!mine) {
      pit.classList.remove("legal");
      continue;
    }
    pit.addEventListener("click", () => play(Number(pit.dataset.hole)));
  }
}

async function refresh() {
  render(await api("/api/position", position()));
}

async function play(hole) {
  // S.sending: a click (or the second click of a double click) while the human's move is on its way
  // is dropped, or it would be sent as the next player's move
  if (S.sending || !S.view || S.view.over || !isHuman(S.view.to_move)) return;
  S.sending = true;
  $("board").classList.remove("human-to-move");
  const moves = S.moves;
  S.moves = [...moves, hole];
  try {
    await refresh();
  } catch (err) {
    S.moves = moves;
    $("board").classList.toggle("human-to-move", isHuman(S.view.to_move));
    showError(err);
    return;
  } finally {
    S.sending = false;
  }
  try {
    await agentsMove();
  } catch (err) {
    showError(err); // the position stays (an agent to move): Undo takes the move back
  }
}

async function agentsMove() {
  const generation = S.generation;
  while (S.mode === "play" && S.view && !S.view.over && !isHuman(S.view.to_move)) {
    const seat = S.view.to_move;
    $("status").textContent = `player_${seat} (${S.sides[seat]}) is thinking…`;
    const view = await api("/api/move", {...position(), agent: S.sides[seat], seed: S.seed});
    if (generation !== S.generation) return; // a new game, an undo or a replay came in between
    render(view);
  }
}

function describeSides() {
  const humans = [0, 1].filter((p) => S.sides[p] === "human");
  const parts = [0, 1].map((p) => {
    let who = S.sides[p];
    if (S.sides[p] === "human") who += humans.length === 1 ? " (you)" : "";
    const row = p === S.bottom ? "bottom row" : "top row";
    return `player_${p}${p === 0 ? " (moves first)" : ""}: ${who}, ${row}`;
  });
  $("sides").textContent = parts.join(" · ");
}

async function newGame(event) {
  if (event) event.preventDefault();
  showError(null);
  S.mode = "play";
  S.generation += 1;
  S.variant = S.info.variants.find((v) => v.variant === $("variant").value);
  S.sides = [$("p0").value.trim(), $("p1").value.trim()];
  S.seed = Number($("seed").value) || 0;
  const humans = [0, 1].filter((p) => S.sides[p] === "human");
  S.bottom = humans.length === 1 ? humans[0] : 0;
  const kind = $("opening-kind").value;
  if (kind === "suite") S.start = {opening: Number($("opening-index").value)};
  else if (kind === "json") {
    try {
      S.start = {state: JSON.parse($("opening-json").value)};
    } catch (err) {
      showError(new Error(`the pasted position is not valid JSON: ${err.message}`));
      return;
    }
  } else S.start = null;
  describeSides();
  await playFromStart();
}

async function restart() {
  if (S.mode === "replay") return stepTo(0);
  S.generation += 1;
  showError(null);
  await playFromStart();
}

async function playFromStart() {
  S.moves = [];
  try {
    await refresh();
    await agentsMove();
  } catch (err) {
    showError(err);
  }
}

async function undo() {
  if (S.mode !== "play" || !S.moves.length) return;
  S.generation += 1;
  showError(null);
  // take back moves until a human is to move again (the agent's replies go too)
  let moves = S.moves.slice(0, -1);
  const previous = [];
  try {
    for (;;) {
      const view = await api("/api/position", {...position(), moves});
      previous.push(view);
      if (isHuman(view.to_move) || !moves.length) break;
      moves = moves.slice(0, -1);
    }
    render(previous[previous.length - 1]);
  } catch (err) {
    showError(err);
  }
}

// ------------------------------------------------------------------ analysis

// every value column: the value for the player to move, in [-1, 1] (mancala_envs/web/analysis.py)
const COLUMN_HEADS = {
  network: (r) => [["prior", (m) => `${(100 * m.prior).toFixed(1)}%`], ["value", (m) => fmt(m.value)]],
  search: (r) => [["visits", (m) => String(m.visits)], ["value (Q)", (m) => fmt(m.q)]],
  minimax: (r) => [[`minimax d${r.summary.depth}`, (m) => m.text], ["minimax value", (m) => fmt(m.value)]],
  exact: (r) => {
    const heads = [["exact", (m) => m.text]];
    if (Object.values(r.moves).some((m) => m.margin)) {
      heads.push(["margin", (m) => (m.margin ? marginText(m.margin) : "")]);
    }
    return heads;
  },
};

function fmt(x) {
  if (x === null || x === undefined) return "";
  return (x > 0 ? "+" : "") + Number(x).toFixed(3);
}

// the summary's keys in words (value: of the position, for the player to move)
const SUMMARY_WORDS = {value: "value", best: "best move", head_value: "value head's own estimate"};

const NETWORKS = ["az", "policy"];

function waitingText(button) {
  const agent = button.dataset.agent;
  let text = `computing ${button.textContent}…`;
  if (NETWORKS.includes(agent) && !S.warm.has(agent) && !(S.info.networks_loaded || []).includes(agent)) {
    text += " The first analysis of a network loads it and compiles its code: it may take a minute.";
  }
  return text;
}

function marginText([lo, hi]) {
  const show = (x) => (x === null ? "∞" : String(x));
  return lo === hi ? show(lo) : `${lo === null ? "-∞" : lo}…${show(hi)}`;
}

async function analyse(button) {
  if (!S.view || S.view.over) return;
  const column = button.dataset.column;
  const agent = button.dataset.agent;
  const body = {...position(), column, seconds: Number($("seconds").value) || 1};
  if (agent) body.agent = agent;
  if (column === "minimax") body.depth = Number($("depth").value) || 8;
  const key = positionKey();
  showError(null);
  button.disabled = true;
  $("analysis-summary").textContent = waitingText(button);
  try {
    const result = await api("/api/analyse", body);
    if (NETWORKS.includes(agent)) S.warm.add(agent);
    if (key !== positionKey()) return;
    S.analysis.set(agent ? `${column}:${agent}` : column, result);
    $("board").innerHTML = result.board;
    makeClickable();
    renderAnalysis();
  } catch (err) {
    $("analysis-summary").textContent = "";
    showError(err);
  } finally {
    button.disabled = false;
  }
}

function renderAnalysis() {
  const head = $("analysis-table").tHead;
  const body = $("analysis-table").tBodies[0];
  head.innerHTML = "";
  body.innerHTML = "";
  const summaries = [];
  if (!S.analysis.size || !S.view) {
    $("analysis-summary").textContent = "";
    return;
  }
  const columns = [];
  for (const [key, result] of S.analysis) {
    const who = key.includes(":") ? ` (${key.split(":")[1]})` : "";
    for (const [title, cell] of COLUMN_HEADS[result.column](result)) {
      columns.push({key, title: title + who, cell, result});
    }
    const parts = Object.entries(result.summary)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `${SUMMARY_WORDS[k] || k} ${k.includes("value") ? fmt(v) : v}`);
    summaries.push(`${key}: ${parts.join(", ")}`);
  }
  const row = head.insertRow();
  for (const title of ["move", ...columns.map((c) => c.title)]) {
    const th = document.createElement("th");
    th.textContent = title;
    row.appendChild(th);
  }
  for (const move of S.view.legal) {
    const tr = body.insertRow();
    tr.dataset.move = String(move);
    tr.insertCell().textContent = String(move);
    for (const c of columns) {
      const td = tr.insertCell();
      const m = c.result.moves[String(move)];
      td.dataset.column = c.key;
      td.textContent = m ? c.cell(m) : "";
    }
  }
  $("analysis-summary").textContent = summaries.join(" · ");
}

// ------------------------------------------------------------------ replay

async function loadRecords() {
  try {
    const listing = await api("/api/records");
    $("records-folder").textContent = listing.folder
      ? `records in ${listing.folder}`
      : "no records folder: start the server with --records DIR";
    const select = $("records");
    select.innerHTML = "";
    for (const file of listing.files) {
      if (file.error) {
        const option = new Option(`${file.name}: ${file.error}`, "");
        option.disabled = true;
        select.add(option);
      }
      for (const g of file.games) {
        // the result in the words of the board's result line (render.result_text)
        const result = g.winner === "draw" ? "draw" : g.winner === "none" ? "no winner" : `${g.winner} wins`;
        const text = `${file.name} #${g.index}: ${g.agents[0]} vs ${g.agents[1]}, ${g.plies} plies, ${result}`;
        select.add(new Option(text, `${file.id}/${g.index}`));
      }
    }
  } catch (err) {
    showError(err);
  }
}

async function openRecord() {
  const value = $("records").value;
  if (!value) return;
  try {
    const rec = await api(`/api/records/${value}`);
    S.mode = "replay";
    S.generation += 1;
    S.variant = S.info.variants.find((v) => v.variant === rec.variant) || {
      variant: rec.variant, game: rec.game, params: rec.params,
    };
    S.sides = rec.agents;
    S.bottom = 0;
    S.start = rec.start;
    S.replay = {moves: rec.moves, ply: 0, startPly: rec.start.state.ply, plies: rec.plies};
    S.moves = [];
    $("sides").textContent = `player_0: ${rec.agents[0]} · player_1: ${rec.agents[1]} (replay)`;
    await stepTo(0);
  } catch (err) {
    showError(err);
  }
}

async function stepTo(ply) {
  if (!S.replay) return;
  S.replay.ply = Math.max(0, Math.min(ply, S.replay.moves.length));
  // plies counted from the game's start, as the board and the records list count them
  $("replay-ply").textContent = `ply ${S.replay.startPly + S.replay.ply} of ${S.replay.plies}`;
  // one request at a time (the server answers a second one of this page with 429): quick steps
  // only move S.replay.ply, and the request under way then asks again for the latest ply
  if (S.stepping) return;
  S.stepping = true;
  try {
    for (;;) {
      const replay = S.replay;
      const target = replay.ply;
      S.moves = replay.moves.slice(0, target);
      const view = await api("/api/position", position());
      if (S.mode !== "replay") return; // a new game came in between
      if (S.replay === replay && replay.ply === target) {
        render(view);
        return;
      }
    }
  } catch (err) {
    showError(err);
  } finally {
    S.stepping = false;
  }
}

// ------------------------------------------------------------------ export

async function exportAs(format) {
  showError(null);
  try {
    const response = await fetch("/api/export", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({...position(), format}),
    });
    if (!response.ok) throw new Error((await response.json()).error);
    const url = URL.createObjectURL(await response.blob());
    const link = document.createElement("a");
    link.href = url;
    link.download = `${S.variant.variant}-ply${S.view.state.ply}.${format}`; // the server's name
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (err) {
    showError(err);
  }
}

// ------------------------------------------------------------------ setup

function switchTab(panel) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.panel === panel);
  $("panel-play").hidden = panel !== "play";
  $("panel-replay").hidden = panel !== "replay";
  showError(null); // a message of the other tab is stale
  if (panel === "replay") loadRecords();
}

async function init() {
  try {
    S.info = await api("/api/info");
  } catch (err) {
    showError(err);
    return;
  }
  for (const v of S.info.variants) $("variant").add(new Option(v.title, v.variant));
  for (const spec of ["human", "greedy", "random", "minimax:depth=6", "mcts:sims=1000", "az", "az:sims=0", "policy", "perfect"]) {
    $("agent-specs").appendChild(new Option(spec));
  }
  $("opening-index").max = String(S.info.openings - 1);
  $("setup").addEventListener("submit", newGame);
  $("opening-kind").addEventListener("change", () => {
    $("opening-index-label").hidden = $("opening-kind").value !== "suite";
    $("opening-json").hidden = $("opening-kind").value !== "json";
  });
  $("undo").addEventListener("click", undo);
  $("restart").addEventListener("click", restart);
  $("export-svg").addEventListener("click", () => exportAs("svg"));
  $("export-gif").addEventListener("click", () => exportAs("gif"));
  for (const button of document.querySelectorAll(".analyse")) button.addEventListener("click", () => analyse(button));
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => switchTab(tab.dataset.panel));
  $("records").addEventListener("change", openRecord);
  $("replay-first").addEventListener("click", () => stepTo(0));
  $("replay-back").addEventListener("click", () => stepTo(S.replay ? S.replay.ply - 1 : 0));
  $("replay-next").addEventListener("click", () => stepTo(S.replay ? S.replay.ply + 1 : 0));
  $("replay-last").addEventListener("click", () => stepTo(S.replay ? S.replay.moves.length : 0));
  await newGame();
  document.body.dataset.ready = "true";
}

init();
