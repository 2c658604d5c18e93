// What a screen reader and a keyboard need that Streamlit does not give (docs/testing.md,
// "Accessibility"). Static, served by Streamlit's static serving (.streamlit/config.toml), so a
// browser fetches it once and a page load sends only a script tag; the session's words come in
// as window.__aeA11yConfig (ui/chrome.page_setup), and every text that reaches the page is set
// as text (textContent), never as HTML.
//  - the page's language on the html element (lang, dir) (Streamlit writes lang="en": streamlit#15726);
//  - Streamlit's "Skip to main content" link (the first Tab stop) in the session's language;
//  - every plotly chart named: its main SVG gets role="img", aria-label (the figure's
//    layout.meta.name, computed on the server: attention/figures/alt.py) and a description (its
//    one sentence of what to notice); its other layers are hidden from screen readers, its
//    toolbar taken out of the Tab order; under it, a button that shows its numbers as a table,
//    built here from the figure's own data (nothing more is sent per page load).
// Streamlit redraws elements at will, so a MutationObserver applies this again after each change;
// it changes the page only where something differs, so its own changes end the loop. Loaded
// again (another language), it only takes the new words.
(() => {
  const config = window.__aeA11yConfig || { lang: "en", dir: "ltr", skip: "Skip to main content",
    show: "Show the numbers as a table", hide: "Hide the table" };
  const state = window.__aeA11y || (window.__aeA11y = { config, installed: false });
  state.config = config;
  const root = document.documentElement;
  if (root.lang !== config.lang) root.lang = config.lang;
  if (root.dir !== config.dir) root.dir = config.dir;

  const words = (markup) => {  // plotly's markup (tags, entities) as plain text
    const text = new DOMParser().parseFromString(String(markup ?? ""), "text/html").body.textContent;
    return text.replace(/\s*[←→↑↓]\s*/g, " ").replace(/\s+/g, " ").trim();
  };
  const number = (v, floats) => {  // as the book prints a tensor: 4 decimals (a count: whole)
    if (v === null || v === undefined || Number.isNaN(v)) return "";
    if (v === -Infinity) return "-inf";
    if (v === Infinity) return "inf";
    if (typeof v !== "number") return words(v);
    return Number.isInteger(v) && !floats ? String(v) : v.toFixed(4);
  };
  const axisOf = (gd, id, letter) => gd._fullLayout[letter + "axis" + String(id || letter).slice(1)] || {};
  const labels = (gd, trace, letter, n) => {  // a heatmap's rows (y) or columns (x)
    if (trace[letter] && trace[letter].length === n) return Array.from(trace[letter], words);
    const axis = axisOf(gd, trace[letter + "axis"], letter);
    const ticks = new Map((axis.tickvals || []).map((v, i) => [v, (axis.ticktext || [])[i]]));
    return Array.from({ length: n }, (_, i) => words(ticks.has(i) ? ticks.get(i) : i));
  };

  // The chart's numbers: [{caption, head: [...], rows: [[label, ...cells]]}]
  function tables(gd) {
    const traces = (gd._fullData || []).filter((t) => t.visible === true);
    const heatmaps = traces.filter((t) => t.type === "heatmap" && t.z);
    if (heatmaps.length) {
      return heatmaps.map((t) => {
        let z = Array.from(t.z), floats = z.some((row) => row instanceof Float32Array || row instanceof Float64Array);
        if (t.zmax === 255 && z.some((row) => row instanceof Uint8Array)) {  // a grid's thumbnail: round(weight * 255)
          z = z.map((row) => Array.from(row, (v) => (v / 255).toFixed(2)));  // the weights, to the 1/255 sent
        }
        const rows = labels(gd, t, "y", z.length), columns = labels(gd, t, "x", (z[0] || []).length);
        const corner = [axisOf(gd, t.yaxis, "y"), axisOf(gd, t.xaxis, "x")].map((a) => words(a.title?.text)).filter(Boolean).join(" \\ ");
        const titles = gd._fullLayout.annotations || [];  // a grid's titles, one per heatmap in order
        const caption = words(t.name) || (titles.length >= heatmaps.length ? words(titles[heatmaps.indexOf(t)].text) : "");
        return { caption, head: [corner, ...columns], rows: z.map((r, i) => [rows[i], ...Array.from(r, (v) => number(v, floats))]) };
      });
    }
    const bars = traces.filter((t) => t.type === "bar");
    const curves = traces.filter((t) => t.type === "scatter" && (t.fill === "none" || !t.fill) && t.hoverinfo !== "skip" && t.y);
    const series = bars.length ? bars : curves;
    if (!series.length) return [];
    const positions = (values) => Array.from(values || [], (_, i) => i);  // a curve drawn from y alone
    const along = (t) => (t.orientation === "h" ? [t.y || positions(t.x), t.x] : [t.x || positions(t.y), t.y]);
    const keys = [], index = new Map();
    for (const t of series) for (const k of Array.from(along(t)[0] || [])) if (!index.has(k)) { index.set(k, keys.length); keys.push(k); }
    const rows = keys.map((k) => [words(k), ...series.map(() => "")]);
    series.forEach((t, s) => { const [ks, vs] = along(t); Array.from(ks || []).forEach((k, i) => { rows[index.get(k)][s + 1] = number(vs[i]); }); });
    const first = series[0], axis = axisOf(gd, first.orientation === "h" ? first.yaxis : first.xaxis, first.orientation === "h" ? "y" : "x");
    return [{ caption: "", head: [words(axis.title?.text), ...series.map((t, s) => words(t.name) || String(s + 1))], rows }];
  }

  function table(spec) {
    const element = document.createElement("table");
    if (spec.caption) element.createCaption().textContent = spec.caption;
    const head = element.createTHead().insertRow();
    spec.head.forEach((text, i) => {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = text || (i === 0 ? "#" : String(i));
      head.appendChild(th);
    });
    const body = element.createTBody();
    for (const cells of spec.rows) {
      const row = body.insertRow();
      cells.forEach((text, i) => {
        const cell = document.createElement(i === 0 ? "th" : "td");
        if (i === 0) cell.scope = "row";
        cell.textContent = text;
        row.appendChild(cell);
      });
    }
    return element;
  }

  function fill(gd, box) {
    box.replaceChildren();
    const said = document.createElement("p");
    said.textContent = gd.layout.meta.summary || "";
    box.appendChild(said);
    for (const spec of tables(gd)) box.appendChild(table(spec));
    box.__aeData = gd.data;
  }

  let counter = 0;
  function extras(gd, host, meta) {
    let extra = host.querySelector(":scope > .ae-chart-extra");
    if (!extra) {
      const id = "ae-chart-" + ++counter;
      extra = document.createElement("div");
      extra.className = "ae-chart-extra";
      const said = document.createElement("p");
      said.className = "ae-sr";
      said.hidden = true;  // read as the chart's description only (aria-describedby reads hidden text)
      said.id = id + "-summary";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "ae-table-button";
      button.setAttribute("aria-expanded", "false");
      button.setAttribute("aria-controls", id + "-table");
      const box = document.createElement("div");
      box.className = "ae-table-box";
      box.id = id + "-table";
      box.setAttribute("role", "region");
      box.tabIndex = 0;  // it scrolls sideways: a keyboard must reach it
      box.hidden = true;
      button.addEventListener("click", () => {
        const open = box.hidden;
        if (open) fill(extra.__aeChart, box);
        box.hidden = !open;
        button.setAttribute("aria-expanded", String(open));
        button.textContent = open ? state.config.hide : state.config.show;
      });
      extra.append(said, button, box);
      host.appendChild(extra);
    }
    extra.__aeChart = gd;
    const [said, button, box] = extra.children;
    if (said.textContent !== meta.summary) said.textContent = meta.summary || "";
    const label = box.hidden ? state.config.show : state.config.hide;
    if (button.textContent !== label) button.textContent = label;
    if (box.getAttribute("aria-label") !== meta.name) box.setAttribute("aria-label", meta.name);
    if (!box.hidden && box.__aeData !== gd.data) fill(gd, box);  // redrawn with other numbers
    return said.id;
  }

  function name(gd) {
    const meta = gd.layout && gd.layout.meta;
    const host = gd.closest('[data-testid="stElementContainer"]');
    const svgs = gd.querySelectorAll("svg.main-svg");
    if (!meta || !meta.name || !host || !svgs.length) return;
    const described = extras(gd, host, meta);
    const main = svgs[0];
    if (main.getAttribute("aria-label") !== meta.name) main.setAttribute("aria-label", meta.name);
    if (main.getAttribute("role") !== "img") main.setAttribute("role", "img");
    if (main.getAttribute("aria-describedby") !== described) main.setAttribute("aria-describedby", described);
    for (const layer of Array.from(svgs).slice(1)) if (!layer.hasAttribute("aria-hidden")) layer.setAttribute("aria-hidden", "true");
    // the toolbar (plotly's buttons, named): one Tab stop, its PNG download (the table is the
    // data); the rest by mouse
    for (const button of gd.querySelectorAll(".modebar a, .modebar button")) {
      const keep = button.getAttribute("data-val") === "png" || button.getAttribute("data-attr") === "toImage" ||
        (button.getAttribute("data-title") || "").toLowerCase().includes("png");
      const index = keep ? 0 : -1;
      if (button.tabIndex !== index) button.tabIndex = index;
    }
  }

  function apply() {
    const skip = document.querySelector('[data-testid="stSkipToContent"]');  // Streamlit's, in English
    if (skip && skip.textContent !== state.config.skip) skip.textContent = state.config.skip;
    document.querySelectorAll(".js-plotly-plot").forEach(name);
    // a formula or a table wider than its column (a phone) scrolls in its own box: a keyboard must reach it
    for (const box of document.querySelectorAll('.katex-display, .ae-cell, [data-testid="stTable"] div:has(> table)')) {
      const scrolls = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight;
      if (scrolls && box.tabIndex !== 0) box.tabIndex = 0;
      if (!scrolls && box.hasAttribute("tabindex")) box.removeAttribute("tabindex");
    }
  }

  apply();
  if (!state.installed) {
    state.installed = true;
    let pending = false;
    const own = (r) => r.target.closest && r.target.closest(".hoverlayer, .modebar, .ae-chart-extra");
    new MutationObserver((records) => {
      if (pending || records.every(own)) return;  // a hover label moving: nothing to name
      pending = true;
      requestAnimationFrame(() => { pending = false; apply(); });
    }).observe(document.body, { childList: true, subtree: true });
  }
})();
