/* qarena: playing from the keyboard, and the Train page's opponent menu and presets. Plain script, no
   build step; htmx makes the requests.
   - Enter or Space on a focused move (a board cell, a match) does what a click does.
   - On 3x3 boards the digit keys 1-9 play the cell laid out as on a numeric keypad (each
     cell carries its digit in data-key), except while typing in a field.
   htmx replaces the whole panel after a move, so a move made with Enter or Space puts the
   focus back on the new board (or on "Play again" once the game is over). */
(function () {
  "use strict";
  var refocus = false;

  function play(el) {
    // SVG elements have no click(): send the event htmx listens for.
    el.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
  }

  function busy() {
    var panel = document.getElementById("game-panel");
    return panel !== null && panel.getAttribute("aria-busy") === "true";
  }

  document.addEventListener("keydown", function (e) {
    if (busy()) return; // a move is on its way: one at a time
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.repeat) return;
    var t = e.target instanceof Element ? e.target : null;
    if ((e.key === "Enter" || e.key === " ") && t && t.matches("[data-move][tabindex]")) {
      e.preventDefault(); // Space would scroll the page
      refocus = true;
      play(t);
    } else if (/^[1-9]$/.test(e.key) && !(t && t.closest("input, textarea, select, [contenteditable]"))) {
      var cell = document.querySelector('#position [data-key="' + e.key + '"]');
      if (cell) {
        e.preventDefault();
        play(cell);
      }
    }
  });

  // The Train page's opponent menu follows the game typed: a new list arrives a moment after
  // the game field changes. A choice made while it was on its way is kept, when the new list
  // still has it, instead of the one the request carried.
  var chosenOpponent = null;
  document.addEventListener("htmx:beforeSwap", function (e) {
    var t = e.detail.target;
    if (t && t.id === "opponent") chosenOpponent = t.value;
  });
  document.addEventListener("htmx:afterSwap", function () {
    if (chosenOpponent === null) return;
    var menu = document.getElementById("opponent");
    var kept = chosenOpponent;
    chosenOpponent = null;
    if (!menu) return;
    for (var i = 0; i < menu.options.length; i++) {
      if (menu.options[i].value === kept) { menu.value = kept; return; }
    }
  });

  // A preset plays its write-up's game: choosing one puts that game in the Game field unless
  // the field already names a board of the same game (a preset applies to any of its boards),
  // and the opponent menu follows as if it had been typed.
  document.addEventListener("change", function (e) {
    var t = e.target;
    if (!(t instanceof HTMLSelectElement) || t.name !== "preset" || !t.form) return;
    var chosen = t.options[t.selectedIndex];
    var wanted = chosen ? chosen.getAttribute("data-game") : null;
    var field = t.form.querySelector('input[name="game"]');
    if (!wanted || !field) return;
    if (field.value.trim().split(":")[0] === wanted.split(":")[0]) return;
    field.value = wanted;
    field.dispatchEvent(new Event("change", { bubbles: true }));
  });

  document.addEventListener("htmx:afterSettle", function () {
    if (!refocus) return;
    refocus = false;
    var next = document.querySelector("#position [data-move][tabindex], #game-panel #new-game-link");
    if (next) next.focus();
  });

  // A move on its way: the person's piece is drawn at once (pale), the panel is aria-busy and
  // #thinking says the AI is thinking, until the answer replaces the whole panel (the AI's
  // reply, or the game as before with why: a refused move, a 503). The server's game stays the
  // truth: nothing drawn here outlives the answer. With no answer to swap in (no connection, an
  // unexpected status), the piece goes and #thinking says so.
  var SVG = "http://www.w3.org/2000/svg";
  var waiting = null;

  function draw(el) {
    var svg = el.closest("svg");
    if (!svg) return [];
    if (svg.classList.contains("heaps")) {
      // A click on a match takes it and every match to its right.
      var taken = [];
      for (var m = el; m; m = m.nextElementSibling) {
        if (m.classList.contains("match")) { m.classList.add("pending"); taken.push(m); }
      }
      return taken.map(function (t) { return { undo: function () { t.classList.remove("pending"); } }; });
    }
    // Connect Four: every cell of a column names it; the piece lands on the column's stop.
    var cell = svg.querySelector('g.cell.empty[tabindex][data-move="' + el.getAttribute("data-move") + '"]');
    if (!cell) return [];
    var rect = cell.querySelector("rect");
    var x = +rect.getAttribute("x"), y = +rect.getAttribute("y"), size = +rect.getAttribute("width");
    // X moves first: as many X as O on the board means X to play.
    var xs = svg.querySelectorAll("g.cell.x").length, os = svg.querySelectorAll("g.cell.o").length;
    var piece, m = 14;
    if (xs === os) {
      piece = document.createElementNS(SVG, "path");
      piece.setAttribute("class", "mark-x pending");
      piece.setAttribute("d", "M" + (x + m) + "," + (y + m) + "L" + (x + size - m) + "," + (y + size - m) +
        "M" + (x + size - m) + "," + (y + m) + "L" + (x + m) + "," + (y + size - m));
    } else {
      piece = document.createElementNS(SVG, "circle");
      piece.setAttribute("class", "mark-o pending");
      piece.setAttribute("cx", x + size / 2);
      piece.setAttribute("cy", y + size / 2);
      piece.setAttribute("r", size / 2 - m);
    }
    cell.appendChild(piece);
    return [{ undo: function () { piece.remove(); } }];
  }

  document.addEventListener("htmx:beforeRequest", function (e) {
    var elt = e.detail.elt;
    var panel = document.getElementById("game-panel");
    if (!panel || !(elt instanceof Element) || !panel.contains(elt)) return;
    var path = (e.detail.requestConfig && e.detail.requestConfig.path) || "";
    if (!/\/move$/.test(path)) return;
    var thinking = document.getElementById("thinking");
    waiting = { panel: panel, thinking: thinking, drawn: elt.matches("#position [data-move]") ? draw(elt) : [] };
    panel.setAttribute("aria-busy", "true");
    if (thinking) thinking.textContent = thinking.getAttribute("data-thinking");
  });

  function done(failed) {
    if (waiting === null) return;
    var w = waiting;
    waiting = null;
    w.panel.removeAttribute("aria-busy");
    if (!w.panel.isConnected) return; // replaced by the answer: nothing of the wait is left
    w.drawn.forEach(function (d) { d.undo(); });
    if (w.thinking) w.thinking.textContent = failed ? w.thinking.getAttribute("data-failed") : "";
  }

  document.addEventListener("htmx:afterSwap", function () { done(false); });
  // htmx swaps an answer in before htmx:afterRequest: a wait still open there had no answer.
  document.addEventListener("htmx:afterRequest", function (e) { done(!e.detail.successful); });
  document.addEventListener("htmx:sendError", function () { done(true); });
  document.addEventListener("htmx:timeout", function () { done(true); });
})();
