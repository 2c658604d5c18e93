// A class student's page back from a long sleep (ui/chrome.py, _wake_after; docs/classroom.md).
// A phone asleep longer than Streamlit keeps a session whose browser went
// (server.disconnectedSessionTTL, here window.__aeWakeAfter in ms) comes back to a new, empty
// session, which draws nothing until the student touches the page. So a page hidden that long
// whose connection dropped meanwhile, or drops within 10 s of its waking (as a phone's does),
// reloads itself: its address holds the class and the student's token (the same student, the
// class as it is now). A shorter sleep keeps the session, and the class's bell reruns it
// (ui/classroom/bell.py); a laptop's tab hidden as long keeps its connection and its session (a
// training held on Watch it learn) and is left alone. Streamlit's frontend says its connection
// dropped in a host message, WEBSOCKET_DISCONNECTED, posted to the page's own window when it is
// not embedded and echoed to it when it is. A teacher's page (no student token) and a page
// outside a class never reload. Installed once per page, however often it is loaded.
(() => {
  if (window.__aeWake) return;
  window.__aeWake = true;
  let hidden = document.hidden ? Date.now() : null, lost = false, until = 0;
  const student = () => {
    const here = new URLSearchParams(location.search);
    return here.has("class") && here.has("student");
  };
  window.addEventListener("message", (e) => {
    if (e.source !== window || !e.data || e.data.stCommVersion !== 1 || e.data.type !== "WEBSOCKET_DISCONNECTED") return;
    lost = true;
    if (until > Date.now() && student()) location.reload();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) { hidden = Date.now(); lost = false; return; }
    const away = hidden === null ? 0 : Date.now() - hidden;
    hidden = null;
    if (!(away >= (window.__aeWakeAfter || 120000)) || !student()) return;
    if (lost) location.reload(); else until = Date.now() + 10000;
  });
})();
