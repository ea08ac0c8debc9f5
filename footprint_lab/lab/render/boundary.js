// The Boundary view's one renderer: the exact messages sent at one iteration, their pinned and
// refused marks in words, what left there and why, and the records filed there.
//
// It reads a BoundaryView as JSON (footprint_lab.lab.views.boundary_view(...)
// .model_dump(mode="json"); its schema is BoundaryView.model_json_schema()) and writes text
// only (textContent): no markup is ever built from data. Two hosts use it:
//  * the offline report inlines this file once per page; mountPage() wires every
//    div.boundary[data-boundary] to its slider, its step buttons and the "What left, and why"
//    links, over the view embedded beside it as JSON;
//  * the Inspector's Boundary pane is an anywidget whose _esm is this file: the default
//    export's render() shows its model's "view" (the iteration the kernel's slider names).
// The names below follow the model: `view` is a BoundaryView, `step` one of its iterations
// (BoundaryIteration), `message` a BoundaryMessage and `record` a BoundaryRecord.
//
// A long run sends hundreds of messages per call: the view opens on what the boundary did —
// the record filed there, what left, then what stayed (the window the call sent, with its
// pinned and refused marks) — each table PAGE_ROWS rows at a time with its own pager, so no
// table is pages long.

const SENT_COLUMNS = [
  ["c-index", "#"], ["c-who", "from"], ["c-stage", "stage id"], ["c-chars", "chars"],
  ["c-mark", "pinned or refused"], ["c-text", "text"],
];
const PAGE_ROWS = 20;
const LEFT_COLUMNS = [
  ["c-who", "from"], ["c-stage", "stage id"], ["c-chars", "chars"], ["c-how", "how"],
  ["c-why", "why it left"], ["c-born", "written at iteration"], ["c-text", "text"],
];

function make(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) { node.className = cls; }
  if (text !== undefined) { node.textContent = text === null ? "" : String(text); }
  return node;
}

function put(root, cls, text) {
  const node = root.querySelector("." + cls);
  node.textContent = text === null || text === undefined ? "" : String(text);
  return node;
}

function plural(n, word) {
  return n.toLocaleString("en") + " " + word + (n === 1 ? "" : "s");
}

function table(kind, columns) {
  const scroll = make("div", "boundary-scroll");
  const tab = make("table", "boundary-table " + kind);
  const group = make("colgroup");
  const head = make("tr");
  for (const [cls, label] of columns) {
    group.append(make("col", cls));
    head.append(make("th", null, label));
  }
  const thead = make("thead");
  thead.append(head);
  tab.append(group, thead, make("tbody"));
  scroll.append(tab);
  return scroll;
}

function heading(text, countClass, muted) {
  const h = make("h5", null, text + " (");
  h.append(make("span", countClass), ")");
  if (muted) { h.append(" ", make("span", "boundary-muted", muted)); }
  return h;
}

// One table's pager: earlier and later buttons around "rows a–b of n" (hidden for one page).
function pager(kind) {
  const nav = make("div", "boundary-pager " + kind + "-pager");
  const earlier = make("button", "boundary-page", "◀ earlier");
  const later = make("button", "boundary-page", "later ▶");
  earlier.type = later.type = "button";
  earlier.dataset.page = "-1";
  later.dataset.page = "1";
  earlier.setAttribute("aria-label", "earlier rows");
  later.setAttribute("aria-label", "later rows");
  nav.append(earlier, make("output", "boundary-page-at"), later);
  nav.hidden = true;
  return nav;
}

// Fill table `kind` of `body` with one row per item (build(item, i) makes it), a page at a
// time: rows are built only for the page shown.
function paged(body, kind, items, build) {
  const tbody = body.querySelector("table." + kind + " tbody");
  const nav = body.querySelector("." + kind + "-pager");
  const [earlier, at, later] = nav.children;
  const pages = Math.max(1, Math.ceil(items.length / PAGE_ROWS));
  let page = 0;
  const draw = () => {
    const start = page * PAGE_ROWS;
    const end = Math.min(items.length, start + PAGE_ROWS);
    const rows = [];
    for (let i = start; i < end; i += 1) { rows.push(build(items[i], i)); }
    tbody.replaceChildren(...rows);
    at.textContent = "rows " + (start + 1).toLocaleString("en") + "–" +
      end.toLocaleString("en") + " of " + items.length.toLocaleString("en");
    earlier.disabled = page === 0;
    later.disabled = page === pages - 1;
  };
  nav.hidden = pages <= 1;
  nav.onclick = (event) => {
    const button = event.target.closest ? event.target.closest("button.boundary-page") : null;
    if (!button) { return; }
    page = Math.max(0, Math.min(pages - 1, page + Number(button.dataset.page)));
    draw();
  };
  draw();
}

// The body of a Boundary view, empty: filled by show().
function skeleton() {
  const body = make("div", "boundary-body");
  const none = make("p", "boundary-no-record");
  const sentEmpty = make("p", "boundary-sent-empty", "an empty window");
  const leftEmpty = make("p", "boundary-left-empty", "nothing left the window here");
  none.hidden = sentEmpty.hidden = leftEmpty.hidden = true;
  const parts = make("div", "boundary-parts");
  parts.append(
    make("h5", null, "Record filed at this boundary"),
    make("div", "boundary-records"),
    none,
    heading("Left at this boundary", "boundary-left-count", "— still in the ledger"),
    leftEmpty,
    table("boundary-left", LEFT_COLUMNS),
    pager("boundary-left"),
    heading("Stayed: the window sent", "boundary-sent-count", "— in order, with its marks"),
    sentEmpty,
    table("boundary-sent", SENT_COLUMNS),
    pager("boundary-sent"),
  );
  body.append(make("p", "boundary-caption"), parts);
  return body;
}

function messageRow(message, cells) {
  const row = make("tr");
  row.dataset.stageId = message.stage_id || "";
  row.dataset.position = message.position === null ? "" : String(message.position);
  row.dataset.role = message.role;
  for (const [cls, text] of cells) { row.append(make("td", cls, text)); }
  const cell = make("td", "b-text");
  cell.append(
    make("div", "b-content", message.text),
    make("div", "b-calls", message.calls.map((c) => "→ " + c).join("\n")),
    make("div", "b-badges", message.badges),
    make("div", "b-more",
      message.more ? "… " + message.more.toLocaleString("en") + " more characters" : ""),
  );
  row.append(cell);
  return row;
}

function recordCard(record) {
  const card = make("div", "boundary-record");
  card.dataset.removed = record.removed.join(" ");
  const details = make("details");
  const pairs = make("table", "boundary-pairs");
  const tbody = make("tbody");
  for (const [label, value] of record.pairs) {
    const tr = make("tr");
    tr.append(make("th", null, label), make("td", null, value));
    tbody.append(tr);
  }
  pairs.append(tbody);
  details.append(make("summary", null, "the record in full"), pairs);
  card.append(make("p", "b-sentence", record.sentence), details);
  return card;
}

// Show iteration `index` of `view` in `root` (a div.boundary, or the pane's element); `body`
// is root's skeleton. Returns the iteration shown (null when the view holds none).
function show(root, body, view, index) {
  const step = view.iterations ? view.iterations[index] : undefined;
  const parts = body.querySelector(".boundary-parts");
  parts.hidden = !step;
  if (!step) {
    put(body, "boundary-caption", view.no_calls || "");
    delete root.dataset.iteration;
    return null;
  }
  root.dataset.iteration = String(step.iteration);
  const at = root.querySelector(".boundary-at");
  if (at) {
    at.textContent = "iteration " + step.iteration + " (" + (index + 1) + " of " +
      view.iterations.length + " held here)";
  }
  put(body, "boundary-caption", step.caption);

  body.querySelector(".boundary-records").replaceChildren(...step.records.map(recordCard));
  const none = body.querySelector(".boundary-no-record");
  none.hidden = step.records.length > 0;
  none.textContent = "No record at iteration " + step.iteration + ": " + view.no_record + ".";

  put(body, "boundary-left-count", step.left.length);
  body.querySelector(".boundary-left-empty").hidden = step.left.length > 0;
  paged(body, "boundary-left", step.left, ([ref, how, born], i) => {
    const message = view.messages[ref];
    const row = messageRow(message, [
      ["b-who", message.who], ["b-stage", message.stage_id || "–"],
      ["b-chars", message.chars], ["b-how", how], ["b-why", step.why[i]],
      ["b-born", born === null ? "–" : born],
    ]);
    row.dataset.state = how === "summarized" ? "folded" : "dropped";
    return row;
  });

  put(body, "boundary-sent-count", plural(step.window.length, "message"));
  body.querySelector(".boundary-sent-empty").hidden = step.window.length > 0;
  paged(body, "boundary-sent", step.window, ([ref, code], i) => {
    const message = view.messages[ref];
    const state = view.states[code];
    const row = messageRow(message, [
      ["b-index", i], ["b-who", message.who], ["b-stage", message.stage_id || "–"],
      ["b-chars", message.chars], ["b-mark", view.marks[state]],
    ]);
    row.dataset.state = state;
    return row;
  });
  return step.iteration;
}

// The report: every Boundary view of the page, each with its slider, step buttons and the
// "What left, and why" links that open an iteration.
export function mountPage(doc) {
  const opened = {};
  doc.querySelectorAll("div.boundary[data-boundary]").forEach((root) => {
    const view = JSON.parse(doc.getElementById(root.dataset.boundary).textContent);
    const body = skeleton();
    root.querySelector(".boundary-mount").replaceChildren(body);
    const slider = root.querySelector("input.boundary-slider");
    const go = (index) => {
      const clamped = Math.max(0, Math.min(view.iterations.length - 1, index));
      slider.value = String(clamped);
      show(root, body, view, clamped);
    };
    opened[root.id] = (iteration) => {
      const index = view.iterations.findIndex((step) => step.iteration === iteration);
      if (index >= 0) { go(index); }
      return index >= 0;
    };
    slider.addEventListener("input", () => go(Number(slider.value)));
    root.querySelectorAll("button.boundary-step").forEach((button) => {
      button.addEventListener("click", () => go(Number(slider.value) + Number(button.dataset.step)));
    });
    go(Number(slider.value));
  });
  doc.addEventListener("click", (event) => {
    const link = event.target.closest ? event.target.closest("a.to-boundary") : null;
    if (link && opened[link.dataset.boundary]) {
      opened[link.dataset.boundary](Number(link.dataset.iteration));
    }
  });
}

// The Inspector's Boundary pane (anywidget): its model's "view" is a BoundaryView holding the
// iteration the kernel's slider names (at view.initial), shown whenever it changes.
function render({ model, el }) {
  el.classList.add("boundary");
  const body = skeleton();
  el.replaceChildren(body);
  const redraw = () => {
    const view = model.get("view");
    show(el, body, view, view.initial);
  };
  model.on("change:view", redraw);
  redraw();
  return () => model.off("change:view", redraw);
}

export default { render };
