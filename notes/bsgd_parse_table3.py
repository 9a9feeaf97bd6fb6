"""Parse Tables 3(a) and 3(b) of BSGD_paper.pdf (pdftohtml -xml -f 17 -l 18 -i) into markdown,
keeping the paper's typography: font 5 = TimesNewRomanPS-BoldMT (bold: best budgeted mean),
font 6 = TimesNewRomanPS-BoldItalicMT (bold italic: not significantly worse, one-sided t-test p > 0.05)."""
import re, sys
x = open(sys.argv[1]).read()
pages = re.split(r'<page number="(\d+)"', x)
NUM = re.compile(r'\d+(?:\.\d+)?±\d+(?:\.\d+)?')
for i in range(1, len(pages), 2):
    pg, body = pages[i], pages[i + 1]
    items = re.findall(r'<text top="(\d+)" left="(\d+)" width="(\d+)" height="(\d+)" font="(\d+)">(.*?)</text>', body)
    items = [(int(t), int(l), int(f), re.sub('<.*?>', '', s)) for t, l, w, h, f, s in items if 140 < int(t) < 740]
    # group into lines
    lines = []
    for t, l, f, s in sorted(items):
        if lines and abs(lines[-1][0] - t) <= 4:
            lines[-1][1].append((l, f, s))
        else:
            lines.append([t, [(l, f, s)]])
    colstarts = [278, 377, 476, 575, 675]
    def col_of(left):
        # column of the first number in an item starting at `left`
        return min(range(5), key=lambda c: abs(colstarts[c] - left) if left >= 270 else 99 if c else 0)
    print("=== page", pg)
    for t, its in lines:
        its.sort()
        label = ''
        cells = [None] * 5
        for l, f, s in its:
            nums = NUM.findall(s)
            lab = NUM.sub('', s).strip()
            if l < 270 and lab:
                label += lab + ' '
            if not nums:
                continue
            c = 0 if l < 270 else col_of(l)
            mark = {5: 'B', 6: 'BI'}.get(f, '')
            for n in nums:
                cells[c] = (n, mark); c += 1
        if any(cells) or label.strip():
            print(t, '|', label.strip(), '|', ' | '.join(('' if c is None else (c[0] + ('[' + c[1] + ']' if c[1] else ''))) for c in cells))
