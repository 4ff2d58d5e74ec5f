// The venue board's live parts: each whole board the server sends (server-sent events) is swapped in,
// the page itself never reloads. EventSource connects again by itself after a drop (the server then
// sends the whole board first); when the browser gives up (an answer that is not a stream, such as
// a proxy's error page), a new one is opened after a pause. The HTML comes from the server, which
// escapes every name, exactly as in the page it sent at load.
(function () {
  "use strict";
  var tables = document.getElementById("tables");
  var side = document.getElementById("side");
  var status = document.getElementById("status");
  if (!tables || !side || !window.EventSource) {
    return;
  }
  // A mark that lives as long as the page: a reload would lose it.
  window.clabberBoard = { opened: Date.now(), updates: 0, connections: 0 };

  function say(text, kind) {
    status.textContent = text;
    status.className = kind;
  }

  function clock() {
    var now = new Date();
    return ("0" + now.getHours()).slice(-2) + ":" + ("0" + now.getMinutes()).slice(-2);
  }

  function connect() {
    var source = new EventSource(tables.getAttribute("data-events"));
    source.addEventListener("open", function () {
      window.clabberBoard.connections += 1;
      say("live", "live");
    });
    source.addEventListener("board", function (event) {
      var board = JSON.parse(event.data);
      if (board.gone) {
        return;
      }
      tables.className = "tables cols-" + board.cols;
      tables.innerHTML = board.tables;
      side.innerHTML = board.side;
      window.clabberBoard.updates += 1;
      say("live · " + clock(), "live");
    });
    source.addEventListener("error", function () {
      say("connecting again…", "down");
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        window.setTimeout(connect, 5000);
      }
    });
  }

  connect();
})();
