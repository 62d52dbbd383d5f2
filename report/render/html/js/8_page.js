  /* ---- the page ---- */
  var main = el('main');
  if (D.page === 'merge') {
    app.appendChild(mergeHeader());
    app.appendChild(main);
    [warnings()].concat(mergeSections()).forEach(function (s) { if (s) main.appendChild(s); });
  } else {
    app.appendChild(header());
    app.appendChild(main);
    [warnings, timeline, flames, torchSection, addrmap, tables].concat(D.growth ? [growth] : []).forEach(function (f) {
      var s = f();
      if (s) main.appendChild(s);
    });
  }
  var ms = performance.now() - T_START;
  app.appendChild(el('footer', {text: 'gpuleak-report · drawn in ' + ms.toFixed(0) + ' ms · this page is self-contained and loads nothing'}));
  document.body.setAttribute('data-render-ms', ms.toFixed(1));
  document.body.setAttribute('data-ready', '1');
})();
