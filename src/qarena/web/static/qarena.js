/* qarena: playing from the keyboard, and the Train page's opponent menu. Plain script, no
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

  document.addEventListener("keydown", function (e) {
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

  document.addEventListener("htmx:afterSettle", function () {
    if (!refocus) return;
    refocus = false;
    var next = document.querySelector("#position [data-move][tabindex], #game-panel #new-game-link");
    if (next) next.focus();
  });
})();
