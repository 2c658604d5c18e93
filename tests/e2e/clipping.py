"""What a reader cannot see, read from the page in the browser: text cut by a box that hides what
overflows it, by a row that scrolls sideways out of sight (a segmented control's options) or by the
window's edge, or spilling out of its element (over its neighbour's column); plotly text outside
its chart or its plot area (a bar's share clipped by the axes) or under plotly's toolbar; a data
grid wider than its box. Each returns a list of short descriptions; an empty list means nothing is
cut.

A box made to be read by swiping sideways (a formula, a code block, and on a phone a table) shows
the rest on a swipe: what is in it is not cut."""

from __future__ import annotations

SWIPE = ".katex-display, [data-testid=stCode], pre"  # boxes read by swiping sideways
PHONE_SWIPE = SWIPE + ", [data-testid=stTable], [data-testid=stDataFrame]"  # and tables on a phone
PAGE = "[data-testid=stMain], [data-testid=stSidebarContent]"

# Every text node under `root`, and every formula as one piece (KaTeX's struts are boxes of 0 px),
# against the window and each ancestor box that hides its overflow or scrolls sideways; Streamlit's
# main area (which scrolls, downwards) stands for the window. A select box's chosen option too.
_CUT_TEXT = """([root, swipe]) => {
  const out = [], W = window.innerWidth;
  const SCROLLS = new Set(['auto', 'scroll']), HIDES = new Set(['hidden', 'clip']);
  const page = new Set(document.querySelectorAll('[data-testid=stMain], [data-testid=stSidebarContent]'));
  const shown = (e) => {
    const s = getComputedStyle(e);
    return s.visibility === 'visible' && Number(s.opacity) > 0;
  };
  const name = (e) => e.dataset.testid || e.tagName.toLowerCase();
  const px = (a, b) => `${Math.round(a)}..${Math.round(b)}`;
  const check = (label, r, from) => {
    if (r.width < 1 || r.height < 1) return;
    let left = 0, right = W, upper = -Infinity, lower = Infinity, why = 'the window';
    for (let e = from; e && e !== document.body && !page.has(e); e = e.parentElement) {
      const s = getComputedStyle(e), b = e.getBoundingClientRect();
      if (SCROLLS.has(s.overflowX) && e.scrollWidth > e.clientWidth + 1) {
        if (e.closest(swipe)) { left = -Infinity; right = Infinity; break; }  // the rest: a swipe away
        else if (b.left > left || b.right < right) {
          left = Math.max(left, b.left); right = Math.min(right, b.right);
          why = `${name(e)}, which scrolls sideways,`;
        }
      } else if (HIDES.has(s.overflowX) && (b.left > left || b.right < right)) {
        left = Math.max(left, b.left); right = Math.min(right, b.right); why = `${name(e)}'s box`;
      }
      if (HIDES.has(s.overflowY) && (b.top > upper || b.bottom < lower)) {
        upper = Math.max(upper, b.top); lower = Math.min(lower, b.bottom); why = `${name(e)}'s box`;
      }
    }
    const element = from.closest('[data-testid=stElementContainer]');
    const own = element && element.getBoundingClientRect();
    if (own && left !== -Infinity && (r.left < own.left - 1 || r.right > own.right + 1)) {
      out.push(`"${label.slice(0, 60)}" spills out of its element: text ${px(r.left, r.right)}, ` +
               `element ${px(own.left, own.right)}`);
      return;
    }
    if (r.left < left - 1 || r.right > right + 1 || r.top < upper - 1 || r.bottom > lower + 1)
      out.push(`"${label.slice(0, 60)}" cut by ${why}: text ${px(r.left, r.right)} x ` +
               `${px(r.top, r.bottom)}, seen ${px(left, right)} x ${px(upper, lower)}`);
  };
  for (const top of document.querySelectorAll(root)) {
    const side = top.closest('[data-testid=stSidebar]');
    if (side && side.getBoundingClientRect().right < 2) continue;  // folded away (a phone)
    const walker = document.createTreeWalker(top, NodeFilter.SHOW_TEXT);
    for (let node; (node = walker.nextNode()); ) {
      const text = node.textContent.trim(), parent = node.parentElement;
      if (!text || !parent || !shown(parent)) continue;
      // .ae-sr: a chart's sentence for screen readers, out of sight on purpose (static/a11y.js)
      if (parent.closest('svg, script, style, [role=tooltip], .katex, .ae-sr')) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      check(text, range.getBoundingClientRect(), parent);
    }
    for (const k of top.querySelectorAll('.katex')) {
      const drawn = (k.querySelector('.katex-html') || k).getBoundingClientRect();
      if (shown(k)) check(k.textContent.trim(), drawn, k);
    }
    for (const box of top.querySelectorAll('input[role=combobox]'))  // a select box's chosen option
      if (shown(box) && box.scrollWidth > box.clientWidth + 1)
        out.push(`"${box.value.slice(0, 60)}" cut in its select box`);
  }
  return out;
}"""

# Every plotly chart's text: inside the chart (its main svg), inside the clip rectangle that
# applies to it (the plot area, unless cliponaxis is off), and not under the toolbar (modebar,
# shown on hover: where it stands is measured whether or not it is shown).
_CUT_CHART_TEXT = """() => {
  const out = [];
  const inside = (r, b) =>
    r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
  const meets = (r, b) => r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top;
  const clipBox = (el) => {  // the clip rectangle that applies to el, in window coordinates
    for (let e = el; e && e.tagName !== 'svg'; e = e.parentElement) {
      const ref = e.getAttribute('clip-path');
      const m = ref && ref.match(/url\\(['"]?#([^'")]+)['"]?\\)/);
      const rect = m && document.getElementById(m[1])?.querySelector('rect');
      if (!rect) continue;
      const ctm = e.getScreenCTM(), at = (k) => Number(rect.getAttribute(k)) || 0;
      const a = new DOMPoint(at('x'), at('y')).matrixTransform(ctm);
      const b = new DOMPoint(at('x') + at('width'), at('y') + at('height')).matrixTransform(ctm);
      return {
        left: Math.min(a.x, b.x), right: Math.max(a.x, b.x),
        top: Math.min(a.y, b.y), bottom: Math.max(a.y, b.y),
      };
    }
    return null;
  };
  document.querySelectorAll('.js-plotly-plot').forEach((plot, i) => {
    const svg = plot.querySelector('svg.main-svg');
    if (!svg) return;
    const box = svg.getBoundingClientRect();
    const chart = (plot.querySelector('.gtitle')?.textContent || `chart ${i}`).slice(0, 50);
    const bar = plot.querySelector('.modebar');
    const tools = bar && bar.getBoundingClientRect();
    plot.querySelectorAll('svg text').forEach(t => {
      const text = t.textContent.trim(), style = getComputedStyle(t);
      if (!text || style.display === 'none' || style.visibility === 'hidden') return;
      if (Number(style.opacity) === 0) return;
      const r = t.getBoundingClientRect();
      if (r.width < 1) return;
      const where = `"${text.slice(0, 40)}" in "${chart}"`;
      if (!inside(r, box)) out.push(`${where} leaves the chart`);
      const clip = clipBox(t);
      if (clip && !inside(r, clip)) out.push(`${where} is clipped by its plot area`);
      if (tools && tools.width > 0 && meets(r, tools)) out.push(`${where} is under the toolbar`);
    });
  });
  return out;
}"""

# Streamlit's data grids draw on a canvas: a column is cut when the grid scrolls sideways (unless
# that is allowed: a phone) or the grid leaves the window.
_CUT_GRIDS = """(swipe) => {
  const out = [], W = window.innerWidth;
  document.querySelectorAll('[data-testid=stDataFrame]').forEach((grid, i) => {
    const r = grid.getBoundingClientRect(), scroller = grid.querySelector('.dvn-scroller');
    if (r.right > W + 1) out.push(`table ${i} ends at ${Math.round(r.right)} px, past the window (${W})`);
    if (!grid.matches(swipe) && scroller && scroller.scrollWidth > scroller.clientWidth + 1)
      out.push(`table ${i}: columns ${scroller.scrollWidth} px wide in a ${scroller.clientWidth} px box`);
  });
  return out;
}"""


def cut_text(page, root: str = PAGE, swipe: str = SWIPE) -> list[str]:
    return page.evaluate(_CUT_TEXT, [root, swipe])


def cut_chart_text(page) -> list[str]:
    return page.evaluate(_CUT_CHART_TEXT)


def cut_grids(page, swipe: str = SWIPE) -> list[str]:
    return page.evaluate(_CUT_GRIDS, swipe)


def everything_cut(page, phone: bool = False) -> list[str]:
    """All of the above, on the page as it is now; on a phone a table may be read by swiping."""
    swipe = PHONE_SWIPE if phone else SWIPE
    return cut_text(page, swipe=swipe) + cut_chart_text(page) + cut_grids(page, swipe)
