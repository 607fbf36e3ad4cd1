// The dashboard's only script, an enhancement: every page works without it.
//
// - Live regions: an element with an id and `data-live="<milliseconds>"` is refreshed from the same
//   page, fetched again with the session, every that many milliseconds while the tab is visible;
//   the server renders `data-live="off"` once nothing in it can change (a finished job), which
//   stops the polling. The server renders the page; this only swaps the regions in.
// - Confirmations: a link with `data-confirm-title` (to a confirmation page) opens a dialog whose
//   form posts to that same address instead.
// - Secrets: a read-only input with `data-copy` gets a Copy button.
(function () {
  "use strict";

  var MAX_BACKOFF = 8;
  var timer = null;
  var failures = 0;

  function liveRegions() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-live][id]"));
  }

  function nextInterval() {
    var shortest = null;
    liveRegions().forEach(function (region) {
      var every = parseInt(region.getAttribute("data-live"), 10);
      if (every > 0 && (shortest === null || every < shortest)) {
        shortest = every;
      }
    });
    return shortest;
  }

  function schedule() {
    if (timer !== null) {
      return;
    }
    var every = nextInterval();
    if (every === null) {
      return;
    }
    var backoff = failures ? Math.min(Math.pow(2, failures), MAX_BACKOFF) : 1;
    timer = window.setTimeout(refresh, every * backoff);
  }

  function swap(fresh) {
    liveRegions().forEach(function (region) {
      var replacement = fresh.getElementById(region.id);
      var focused = document.activeElement;
      if (!replacement || (focused && focused !== document.body && region.contains(focused))) {
        return;
      }
      if (replacement.outerHTML !== region.outerHTML) {
        region.replaceWith(document.importNode(replacement, true));
      }
    });
  }

  function refresh() {
    timer = null;
    if (document.hidden) {
      return; // visibilitychange schedules again
    }
    window
      .fetch(window.location.href, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } })
      .then(function (response) {
        // A redirect means the session ended (to the sign-in page): leave the page as it is.
        if (response.redirected || !response.ok) {
          throw new Error("page unavailable: " + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        swap(new DOMParser().parseFromString(html, "text/html"));
        failures = 0;
        schedule();
      })
      .catch(function () {
        failures += 1;
        schedule();
      });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) {
      schedule();
    }
  });

  function setUpConfirmations() {
    var dialog = document.getElementById("confirm-dialog");
    if (!dialog || typeof dialog.showModal !== "function") {
      return; // the links lead to their confirmation pages
    }
    var form = document.getElementById("confirm-form");
    var keep = document.getElementById("confirm-no");
    document.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest("a[data-confirm-title]") : null;
      if (!link) {
        return;
      }
      event.preventDefault();
      form.setAttribute("action", link.getAttribute("href"));
      document.getElementById("confirm-title").textContent = link.getAttribute("data-confirm-title");
      document.getElementById("confirm-text").textContent = link.getAttribute("data-confirm-text");
      document.getElementById("confirm-yes").textContent = link.getAttribute("data-confirm-button");
      dialog.showModal();
      keep.focus(); // the harmless answer is the default one
    });
    keep.addEventListener("click", function () {
      dialog.close();
    });
  }

  function setUpCopyButtons() {
    Array.prototype.forEach.call(document.querySelectorAll("input[data-copy]"), function (input) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "secondary";
      button.textContent = "Copy";
      button.addEventListener("click", function () {
        input.select();
        var done = function () {
          button.textContent = "Copied";
        };
        if (navigator.clipboard) {
          navigator.clipboard.writeText(input.value).then(done, function () {});
        }
      });
      input.insertAdjacentElement("afterend", button);
    });
  }

  setUpConfirmations();
  setUpCopyButtons();
  schedule();
})();
