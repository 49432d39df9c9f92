import Foundation

/// report.html: one self-contained page (inline CSS, SVG and a little plain JavaScript; no network,
/// no other file needed) built from a folder's summary, its figures and its query list.
struct HTMLPage {
    var title: String
    /// The page's body, in order (HTML).
    var parts: [String] = []
    var queries: QueryList?

    init(title: String) { self.title = title }

    mutating func add(_ html: String) { parts.append(html) }

    var html: String {
        var page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>\(Self.escape(title))</title>\n"
        page += "<style>\n\(Self.style)</style>\n</head>\n<body>\n"
        page += parts.joined()
        if let queries { page += queries.html }
        page += "<script>\n\(Self.script)</script>\n</body>\n</html>\n"
        return page
    }

    func write(to folder: URL) throws {
        try Data(html.utf8).write(to: folder.appendingPathComponent("report.html"), options: .atomic)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// An SVG file's text as an element of the page.
    static func inlineSVG(_ svg: String) -> String {
        svg.replacingOccurrences(of: "<svg xmlns=\"http://www.w3.org/2000/svg\"", with: "<svg role=\"img\" xmlns=\"http://www.w3.org/2000/svg\"")
    }

    static let style = """
    body { font: 14px/1.45 sans-serif; margin: 1.5em auto; max-width: 1400px; padding: 0 1em; color: #222; }
    table { border-collapse: collapse; margin: 0.8em 0; font-size: 13px; }
    th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: left; vertical-align: top; }
    th { background: #f3f3f3; cursor: pointer; }
    th[data-sort="asc"]::after { content: " ▲"; } th[data-sort="desc"]::after { content: " ▼"; }
    a.to-queries { color: inherit; text-decoration: none; border-bottom: 1px dotted #36c; display: block; }
    a.to-queries:hover { background: #eef3ff; }
    figure { margin: 1em 0; overflow-x: auto; }
    .matrices figure { display: inline-block; margin: 0 1em 1em 0; vertical-align: top; }
    .query-scroll { overflow-x: auto; }
    details > summary { cursor: pointer; font-weight: bold; margin: 0.6em 0; }
    code { background: #f5f5f5; padding: 0 3px; }
    #queries { border-top: 2px solid #36c; margin-top: 2em; }
    #query-controls label { margin-right: 1em; }
    .outcome-correct, .outcome-no-match-negative { color: #176b2c; }
    .fail { background: #fff4f0; }
    audio { height: 28px; width: 170px; vertical-align: middle; }
    .missing { color: #a00; }
    """

    /// Sortable tables (click a header) and the query list: filters, pages of 50 rows, players.
    static let script = """
    (function () {
      function key(row, i) {
        var s = row.cells[i] ? row.cells[i].textContent.trim() : '';
        var n = parseFloat(s.replace(/^[^0-9.\\-]+/, ''));
        return isNaN(n) ? s : n;
      }
      document.querySelectorAll('table.sortable th').forEach(function (th) {
        th.addEventListener('click', function () {
          var table = th.closest('table'), i = Array.prototype.indexOf.call(th.parentNode.children, th);
          var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows), up = th.dataset.sort !== 'asc';
          table.querySelectorAll('th').forEach(function (h) { delete h.dataset.sort; });
          th.dataset.sort = up ? 'asc' : 'desc';
          rows.sort(function (x, y) {
            var a = key(x, i), b = key(y, i);
            var d = (typeof a === 'number' && typeof b === 'number') ? a - b : String(a).localeCompare(String(b));
            return up ? d : -d;
          });
          rows.forEach(function (r) { body.appendChild(r); });
        });
      });
      var source = document.getElementById('query-data');
      if (!source) return;
      var data = JSON.parse(source.textContent), columns = data.columns, filter = {}, page = 0, size = 50;
      (function unpack() {  // each row's indices, packed as base-64 digits per column (QueryList)
        var alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-', digit = {}, s = data.packed, p = 0;
        for (var k = 0; k < 64; k++) digit[alphabet.charAt(k)] = k;
        data.rows = [];
        for (var r = 0; r < data.rowCount; r++) {
          var row = [];
          for (var c = 0; c < data.widths.length; c++) {
            var v = 0;
            for (var w = 0; w < data.widths[c]; w++) v = v * 64 + digit[s.charAt(p++)];
            row.push(v);
          }
          data.rows.push(row);
        }
      })();
      var controls = document.getElementById('query-controls'), list = document.getElementById('query-list');
      var count = document.getElementById('query-count'), pager = document.getElementById('query-pager');
      function column(name) { for (var i = 0; i < columns.length; i++) if (columns[i].name === name) return i; return -1; }
      var selects = {}, outcome = column('outcome');
      data.filters.forEach(function (name) {
        var c = columns[column(name)], label = document.createElement('label'), select = document.createElement('select');
        select.innerHTML = '<option value="">all</option>';
        c.values.forEach(function (v) { var o = document.createElement('option'); o.value = v; o.textContent = v; select.appendChild(o); });
        select.addEventListener('change', function () { filter[name] = select.value; page = 0; render(); });
        label.textContent = name + ' '; label.appendChild(select); controls.appendChild(label); selects[name] = select;
      });
      function keep(row) {
        for (var name in filter) {
          var i = column(name);
          if (filter[name] !== '' && i >= 0 && columns[i].values[row[i]] !== filter[name]) return false;
        }
        return true;
      }
      function cell(c, value) {
        var td = document.createElement('td');
        if (c.kind === 'audio') {
          if (value) { var a = document.createElement('audio'); a.controls = true; a.preload = 'none'; a.src = value; td.appendChild(a); }
          else td.textContent = '—';
        } else td.textContent = value;
        return td;
      }
      function render() {
        var rows = data.rows.filter(keep), pages = Math.max(1, Math.ceil(rows.length / size));
        page = Math.min(page, pages - 1);
        count.textContent = rows.length + ' of ' + data.rows.length + ' answers';
        list.tBodies[0].innerHTML = '';
        rows.slice(page * size, page * size + size).forEach(function (row) {
          var tr = document.createElement('tr');
          columns.forEach(function (c, i) { tr.appendChild(cell(c, c.values[row[i]])); });
          if (outcome >= 0 && data.failed.indexOf(columns[outcome].values[row[outcome]]) >= 0) tr.className = 'fail';
          list.tBodies[0].appendChild(tr);
        });
        pager.innerHTML = '';
        [['first', 0], ['previous', page - 1], ['next', page + 1], ['last', pages - 1]].forEach(function (b) {
          var button = document.createElement('button');
          button.textContent = b[0]; button.disabled = b[1] < 0 || b[1] >= pages || b[1] === page;
          button.addEventListener('click', function () { page = b[1]; render(); });
          pager.appendChild(button);
        });
        pager.appendChild(document.createTextNode(' page ' + (page + 1) + ' of ' + pages));
      }
      function fromHash() {
        if (location.hash.indexOf('#q:') !== 0) return;
        filter = {};
        location.hash.slice(3).split('&').forEach(function (pair) {
          var kv = pair.split('='); if (kv.length === 2) filter[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1]);
        });
        for (var name in selects) selects[name].value = filter[name] || '';
        page = 0; render();
        document.getElementById('queries').scrollIntoView();
      }
      var head = document.createElement('tr');
      columns.forEach(function (c) { var th = document.createElement('th'); th.textContent = c.name; head.appendChild(th); });
      list.tHead.appendChild(head);
      window.addEventListener('hashchange', fromHash);
      render(); fromHash();
    })();
    // Milliseconds from opening the page to its first rendered list (read by `chromium --headless --dump-dom`).
    window.addEventListener('load', function () { document.body.dataset.loadedMs = Math.round(performance.now()); });
    """
}
