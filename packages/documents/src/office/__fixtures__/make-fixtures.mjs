// Writes the office fixtures of the reader tests: real DOCX, XLSX, PPTX and ODT packages with the
// minimal structure Word, Excel, PowerPoint and LibreOffice expect ([Content_Types].xml, _rels/.rels,
// the main part and its relationships; a master, layout and theme for PPTX; an uncompressed first
// `mimetype` entry for ODF). Run: node packages/documents/src/office/__fixtures__/make-fixtures.mjs
// The generated files are committed; the tests read them and never run this script.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { strToU8, zipSync } from 'fflate';

const HERE = dirname(fileURLToPath(import.meta.url));
// A fixed timestamp keeps the files byte-identical from run to run.
const MTIME = new Date('2024-03-01T12:00:00Z');
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

const NS = {
  ct: 'http://schemas.openxmlformats.org/package/2006/content-types',
  pr: 'http://schemas.openxmlformats.org/package/2006/relationships',
  r: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  w: 'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  s: 'http://schemas.openxmlformats.org/spreadsheetml/2006/main',
  p: 'http://schemas.openxmlformats.org/presentationml/2006/main',
  a: 'http://schemas.openxmlformats.org/drawingml/2006/main',
};
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function writeZip(name, files, { stored = [] } = {}) {
  const entries = {};
  for (const [path, content] of Object.entries(files)) {
    entries[path] = [strToU8(content), { level: stored.includes(path) ? 0 : 6, mtime: MTIME }];
  }
  writeFileSync(join(HERE, name), zipSync(entries));
}

function contentTypes(overrides, defaults = {}) {
  const d = { rels: 'application/vnd.openxmlformats-package.relationships+xml', xml: 'application/xml', ...defaults };
  return `${XML}<Types xmlns="${NS.ct}">${Object.entries(d).map(([e, t]) => `<Default Extension="${e}" ContentType="${t}"/>`).join('')}${Object.entries(overrides)
    .map(([p, t]) => `<Override PartName="/${p}" ContentType="${t}"/>`).join('')}</Types>`;
}

function rels(list) {
  return `${XML}<Relationships xmlns="${NS.pr}">${list
    .map(([id, type, target, external]) => `<Relationship Id="${id}" Type="${type.startsWith('http') ? type : `${REL}/${type}`}" Target="${target}"${external ? ' TargetMode="External"' : ''}/>`)
    .join('')}</Relationships>`;
}

function packageRels(main) {
  return rels([
    ['rId1', 'officeDocument', main],
    ['rId2', 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties', 'docProps/core.xml'],
    ['rId3', 'extended-properties', 'docProps/app.xml'],
  ]);
}

function coreXml({ title, creator, subject, keywords, language }) {
  return `${XML}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
    `<dc:title>${title}</dc:title><dc:creator>${creator}</dc:creator>${subject ? `<dc:subject>${subject}</dc:subject>` : ''}${keywords ? `<cp:keywords>${keywords}</cp:keywords>` : ''}` +
    `${language ? `<dc:language>${language}</dc:language>` : ''}<dcterms:created xsi:type="dcterms:W3CDTF">2024-01-15T09:30:00Z</dcterms:created>` +
    `<dcterms:modified xsi:type="dcterms:W3CDTF">2024-02-20T16:45:00Z</dcterms:modified></cp:coreProperties>`;
}

function appXml(extra) {
  return `${XML}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"><Application>Trawl fixture writer</Application>${extra}</Properties>`;
}

const CT_CORE = 'application/vnd.openxmlformats-package.core-properties+xml';
const CT_APP = 'application/vnd.openxmlformats-officedocument.extended-properties+xml';

// ---------------------------------------------------------------- DOCX
function docx() {
  const t = (text) => `<w:t xml:space="preserve">${text}</w:t>`;
  const run = (text, rPr = '') => `<w:r>${rPr ? `<w:rPr>${rPr}</w:rPr>` : ''}${t(text)}</w:r>`;
  const para = (content, pPr = '') => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ''}${content}</w:p>`;
  const styled = (style, text) => para(run(text), `<w:pStyle w:val="${style}"/>`);
  const item = (numId, ilvl, content) => para(content, `<w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr>`);
  const cell = (content, tcPr = '') => `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/>${tcPr}</w:tcPr>${para(content)}</w:tc>`;
  const body = [
    styled('Title', 'Quarterly Report'),
    para(run('Prepared for the board. ') + run('This is bold', '<w:b/>') + run(' and ') + run('this is italic', '<w:i/>') + run(', then ') +
      run('bold italic', '<w:b/><w:i/>') + run(' &amp; &lt;escaped&gt; text.')),
    styled('Heading1', 'Introduction'),
    para(run('Read the ') + `<w:hyperlink r:id="rId10" w:history="1">${run('documentation', '<w:rStyle w:val="Hyperlink"/>')}</w:hyperlink>` +
      run(' or the ') + `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> HYPERLINK "https://example.org/field" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>` +
      run('field link') + `<w:r><w:fldChar w:fldCharType="end"/></w:r>` + run('. Never ') +
      `<w:hyperlink r:id="rId11">${run('a script link')}</w:hyperlink>` + run('.') +
      `<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteReference w:id="1"/></w:r>`),
    para(run('First line') + '<w:r><w:br/></w:r>' + run('second line') + '<w:r><w:tab/></w:r>' + run('after a tab')),
    item(1, 0, run('Apples')),
    item(1, 1, run('Green apples')),
    item(1, 1, run('Red apples')),
    item(1, 0, run('Pears')),
    para(run('Steps:')),
    item(2, 0, run('Open the box')),
    item(2, 1, run('Carefully')),
    item(2, 0, run('Use the ') + run('contents', '<w:b/>')),
    styled('Heading2', 'Results'),
    `<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid>` +
      `<w:tr><w:trPr><w:tblHeader/></w:trPr>${cell(run('Region'))}${cell(run('Q1'))}${cell(run('Q2'))}</w:tr>` +
      `<w:tr>${cell(run('North'), '<w:vMerge w:val="restart"/>')}${cell(run('10'))}${cell(run('12'))}</w:tr>` +
      `<w:tr>${cell('', '<w:vMerge/>')}${cell(run('11'))}${cell(run('13'))}</w:tr>` +
      `<w:tr>${cell(run('Total (both quarters)'), '<w:gridSpan w:val="2"/>')}${cell(run('46'))}</w:tr></w:tbl>`,
    styled('MySection', 'Custom outline heading'),
    styled('SourceCode', 'const x = 1;'),
    styled('SourceCode', 'if (x &lt; 2) return;'),
    para(run('The end.')),
    `<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>`,
  ];
  const document = `${XML}<w:document xmlns:w="${NS.w}" xmlns:r="${NS.r}"><w:body>${body.join('')}</w:body></w:document>`;
  const style = (type, id, name, inner = '') => `<w:style w:type="${type}" w:styleId="${id}"><w:name w:val="${name}"/>${inner}</w:style>`;
  const styles = `${XML}<w:styles xmlns:w="${NS.w}"><w:docDefaults><w:rPrDefault><w:rPr><w:lang w:val="en-GB"/></w:rPr></w:rPrDefault></w:docDefaults>` +
    style('paragraph', 'Normal', 'Normal', '<w:qFormat/>') +
    style('paragraph', 'Title', 'Title', '<w:basedOn w:val="Normal"/><w:rPr><w:sz w:val="56"/></w:rPr>') +
    style('paragraph', 'Heading1', 'heading 1', '<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/></w:rPr>') +
    style('paragraph', 'Heading2', 'heading 2', '<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:rPr><w:b/></w:rPr>') +
    style('paragraph', 'MySection', 'My Section', '<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr>') +
    style('paragraph', 'SourceCode', 'Source Code', '<w:basedOn w:val="Normal"/><w:rPr><w:rFonts w:ascii="Courier New" w:hAnsi="Courier New"/></w:rPr>') +
    style('paragraph', 'ListParagraph', 'List Paragraph', '<w:basedOn w:val="Normal"/><w:pPr><w:ind w:left="720"/></w:pPr>') +
    style('character', 'Hyperlink', 'Hyperlink', '<w:rPr><w:color w:val="0563C1"/><w:u w:val="single"/></w:rPr>') +
    style('character', 'FootnoteReference', 'footnote reference', '<w:rPr><w:vertAlign w:val="superscript"/></w:rPr>') +
    style('table', 'TableGrid', 'Table Grid') + '</w:styles>';
  const lvl = (ilvl, fmt, text) => `<w:lvl w:ilvl="${ilvl}"><w:start w:val="1"/><w:numFmt w:val="${fmt}"/><w:lvlText w:val="${text}"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="${720 * (ilvl + 1)}" w:hanging="360"/></w:pPr></w:lvl>`;
  const numbering = `${XML}<w:numbering xmlns:w="${NS.w}">` +
    `<w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="hybridMultilevel"/>${lvl(0, 'bullet', '•')}${lvl(1, 'bullet', 'o')}</w:abstractNum>` +
    `<w:abstractNum w:abstractNumId="1"><w:multiLevelType w:val="hybridMultilevel"/>${lvl(0, 'decimal', '%1.')}${lvl(1, 'lowerLetter', '%2.')}</w:abstractNum>` +
    `<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>`;
  const footnotes = `${XML}<w:footnotes xmlns:w="${NS.w}" xmlns:r="${NS.r}">` +
    `<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>` +
    `<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>` +
    `<w:footnote w:id="1"><w:p><w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:footnoteRef/></w:r>${run(' Figures are unaudited.')}</w:p></w:footnote></w:footnotes>`;
  const settings = `${XML}<w:settings xmlns:w="${NS.w}"><w:footnotePr><w:footnote w:id="-1"/><w:footnote w:id="0"/></w:footnotePr></w:settings>`;
  writeZip('report.docx', {
    '[Content_Types].xml': contentTypes({
      'word/document.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
      'word/styles.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml',
      'word/numbering.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml',
      'word/footnotes.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml',
      'word/settings.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml',
      'docProps/core.xml': CT_CORE,
      'docProps/app.xml': CT_APP,
    }),
    '_rels/.rels': packageRels('word/document.xml'),
    'word/document.xml': document,
    'word/_rels/document.xml.rels': rels([
      ['rId1', 'styles', 'styles.xml'],
      ['rId2', 'numbering', 'numbering.xml'],
      ['rId3', 'footnotes', 'footnotes.xml'],
      ['rId4', 'settings', 'settings.xml'],
      ['rId10', 'hyperlink', 'https://example.com/docs?a=1&amp;b=2', true],
      ['rId11', 'hyperlink', 'javascript:alert(1)', true],
    ]),
    'word/styles.xml': styles,
    'word/numbering.xml': numbering,
    'word/footnotes.xml': footnotes,
    'word/settings.xml': settings,
    'docProps/core.xml': coreXml({ title: 'Quarterly Report', creator: 'Ada Lovelace', subject: 'Finance', keywords: 'report, quarterly', language: 'en-GB' }),
    'docProps/app.xml': appXml('<Pages>3</Pages>'),
  });
}

// ---------------------------------------------------------------- XLSX
function xlsx() {
  const strings = ['Region', 'Amount', 'Date', 'When', 'Paid', 'North', 'South', 'Merged total', 'secret', 'Just notes', 'Share', 'Multi\nline'];
  const sst = `${XML}<sst xmlns="${NS.s}" count="${strings.length + 1}" uniqueCount="${strings.length + 1}">${strings.map((s) => `<si><t xml:space="preserve">${s}</t></si>`).join('')}` +
    `<si><r><rPr><b/></rPr><t>Rich</t></r><r><t xml:space="preserve"> &amp; &lt;escaped&gt;</t></r><rPh sb="0" eb="1"><t>PHONETIC</t></rPh></si></sst>`;
  const S = (s) => strings.indexOf(s);
  const c = (ref, inner, attrs = '') => `<c r="${ref}"${attrs}>${inner}</c>`;
  const str = (ref, s, style = '') => c(ref, `<v>${S(s)}</v>`, ` t="s"${style}`);
  const num = (ref, v, style = '') => c(ref, `<v>${v}</v>`, style);
  const sheet = (rows, extra = '') => `${XML}<worksheet xmlns="${NS.s}" xmlns:r="${NS.r}"><sheetData>${rows.map((cells, i) => `<row r="${i + 1}">${cells.join('')}</row>`).join('')}</sheetData>${extra}</worksheet>`;
  const sheet1 = sheet([
    [str('A1', 'Region'), str('B1', 'Amount'), str('C1', 'Date'), str('D1', 'When'), str('E1', 'Paid'), str('F1', 'Share')],
    [str('A2', 'North'), num('B2', '1234.5'), num('C2', '45292', ' s="1"'), num('D2', '45292.5', ' s="2"'), c('E2', '<v>1</v>', ' t="b"'), num('F2', '0.125', ' s="3"')],
    [str('A3', 'South'), c('B3', '<f>B2*2</f><v>2469</v>'), c('C3', '<is><t>inline &amp; string</t></is>', ' t="inlineStr"'), c('D3', '<v>#DIV/0!</v>', ' t="e"'), c('E3', '<f>IF(B3&gt;0,"yes","no")</f><v>yes</v>', ' t="str"'), c('F3', '<v>12</v>', ' t="s"')],
    [str('A4', 'Merged total'), c('B4', '', ' s="0"'), num('C4', '3703.5'), c('H4', '', ' s="1"')],
    [c('A5', '', ' s="1"'), c('B5', '', ' s="1"')],
  ], '<mergeCells count="1"><mergeCell ref="A4:B4"/></mergeCells><hyperlinks><hyperlink ref="A2" r:id="rId1"/></hyperlinks>');
  const sheet2 = sheet([[str('A1', 'secret')]]);
  const sheet3 = `${XML}<worksheet xmlns="${NS.s}"><sheetData><row r="2">${str('B2', 'Just notes')}</row><row r="3">${num('B3', '0.30000000000000004')}</row></sheetData></worksheet>`;
  const styles = `${XML}<styleSheet xmlns="${NS.s}"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd\\ hh:mm"/></numFmts>` +
    `<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
    `<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
    `<cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>` +
    `<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="10" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>` +
    `<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;
  const workbook = `${XML}<workbook xmlns="${NS.s}" xmlns:r="${NS.r}"><workbookPr/><bookViews><workbookView/></bookViews><sheets>` +
    `<sheet name="Sales &amp; Costs" sheetId="1" r:id="rId1"/><sheet name="Hidden" sheetId="2" state="hidden" r:id="rId2"/><sheet name="Notes" sheetId="3" r:id="rId3"/></sheets></workbook>`;
  const ct = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
  writeZip('sales.xlsx', {
    '[Content_Types].xml': contentTypes({
      'xl/workbook.xml': `${ct}.sheet.main+xml`,
      'xl/worksheets/sheet1.xml': `${ct}.worksheet+xml`,
      'xl/worksheets/sheet2.xml': `${ct}.worksheet+xml`,
      'xl/worksheets/sheet3.xml': `${ct}.worksheet+xml`,
      'xl/sharedStrings.xml': `${ct}.sharedStrings+xml`,
      'xl/styles.xml': `${ct}.styles+xml`,
      'docProps/core.xml': CT_CORE,
      'docProps/app.xml': CT_APP,
    }),
    '_rels/.rels': packageRels('xl/workbook.xml'),
    'xl/workbook.xml': workbook,
    'xl/_rels/workbook.xml.rels': rels([
      ['rId1', 'worksheet', 'worksheets/sheet1.xml'],
      ['rId2', 'worksheet', 'worksheets/sheet2.xml'],
      ['rId3', 'worksheet', 'worksheets/sheet3.xml'],
      ['rId4', 'sharedStrings', 'sharedStrings.xml'],
      ['rId5', 'styles', 'styles.xml'],
    ]),
    'xl/worksheets/sheet1.xml': sheet1,
    'xl/worksheets/_rels/sheet1.xml.rels': rels([['rId1', 'hyperlink', 'https://example.com/north', true]]),
    'xl/worksheets/sheet2.xml': sheet2,
    'xl/worksheets/sheet3.xml': sheet3,
    'xl/sharedStrings.xml': sst,
    'xl/styles.xml': styles,
    'docProps/core.xml': coreXml({ title: 'Sales Workbook', creator: 'Grace Hopper' }),
    'docProps/app.xml': appXml(''),
  });
}

// ---------------------------------------------------------------- PPTX
function pptx() {
  const ph = (type, idx) => `<p:nvPr><p:ph${type ? ` type="${type}"` : ''}${idx !== undefined ? ` idx="${idx}"` : ''}/></p:nvPr>`;
  const sp = (id, name, nvPr, paras) => `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${name}"/><p:cNvSpPr/>${nvPr}</p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>${paras}</p:txBody></p:sp>`;
  const ap = (runs, pPr = '') => `<a:p>${pPr}${runs}</a:p>`;
  const ar = (text, rPr = '<a:rPr lang="en-US"/>') => `<a:r>${rPr}<a:t>${text}</a:t></a:r>`;
  const slide = (shapes) => `${XML}<p:sld xmlns:a="${NS.a}" xmlns:r="${NS.r}" xmlns:p="${NS.p}"><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${shapes}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`;
  const tc = (text, attrs = '') => `<a:tc${attrs}><a:txBody><a:bodyPr/><a:lstStyle/>${ap(ar(text))}</a:txBody><a:tcPr/></a:tc>`;
  const slides = [
    slide(sp(2, 'Title 1', ph('ctrTitle'), ap(ar('Welcome to Trawl'))) + sp(3, 'Subtitle 2', ph('subTitle', 1), ap(ar('An introduction')))),
    slide(sp(2, 'Title 1', ph('title'), ap(ar('Numbers'))) +
      `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Table 3"/><p:cNvGraphicFramePr><a:graphicFrameLocks noGrp="1"/></p:cNvGraphicFramePr><p:nvPr/></p:nvGraphicFramePr>` +
      `<p:xfrm><a:off x="838200" y="1825625"/><a:ext cx="8128000" cy="741680"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblPr firstRow="1"/>` +
      `<a:tblGrid><a:gridCol w="2709333"/><a:gridCol w="2709333"/><a:gridCol w="2709334"/></a:tblGrid>` +
      `<a:tr h="370840">${tc('Metric')}${tc('2023')}${tc('2024')}</a:tr><a:tr h="370840">${tc('Pages crawled')}${tc('1,000')}${tc('5,000')}</a:tr>` +
      `<a:tr h="370840">${tc('Both years merged', ' gridSpan="2"')}<a:tc hMerge="1"><a:txBody><a:bodyPr/><a:lstStyle/><a:p/></a:txBody><a:tcPr/></a:tc>${tc('x')}</a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>` +
      sp(5, 'TextBox 4', '<p:nvPr/>', ap(ar('A plain text box.')))),
    slide(sp(2, 'Title 1', ph('title'), ap(ar('Agenda'))) + sp(3, 'Content Placeholder 2', ph(undefined, 1),
      ap(ar('Crawling')) + ap(ar('Sitemaps'), '<a:pPr lvl="1"/>') + ap(ar('Robots ') + ar('rules', '<a:rPr lang="en-US" b="1"/>'), '<a:pPr lvl="1"/>') +
      ap(ar('See ') + `<a:r><a:rPr lang="en-US"><a:hlinkClick r:id="rId2"/></a:rPr><a:t>the docs</a:t></a:r>`) + ap(ar('Questions'), '<a:pPr><a:buNone/></a:pPr>'))),
  ];
  const master = `${XML}<p:sldMaster xmlns:a="${NS.a}" xmlns:r="${NS.r}" xmlns:p="${NS.p}"><p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/></p:spTree></p:cSld>` +
    `<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>` +
    `<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>`;
  const layout = `${XML}<p:sldLayout xmlns:a="${NS.a}" xmlns:r="${NS.r}" xmlns:p="${NS.p}" type="titleAndContent" preserve="1"><p:cSld name="Title and Content"><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/></p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>`;
  const clr = (name, hex) => `<a:${name}><a:srgbClr val="${hex}"/></a:${name}>`;
  const fill = '<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>';
  const line = '<a:ln w="6350"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln>';
  const theme = `${XML}<a:theme xmlns:a="${NS.a}" name="Trawl"><a:themeElements><a:clrScheme name="Trawl">` +
    `<a:dk1><a:sysClr val="windowText" lastClr="000000"/></a:dk1><a:lt1><a:sysClr val="window" lastClr="FFFFFF"/></a:lt1>${clr('dk2', '44546A')}${clr('lt2', 'E7E6E6')}` +
    `${clr('accent1', '4472C4')}${clr('accent2', 'ED7D31')}${clr('accent3', 'A5A5A5')}${clr('accent4', 'FFC000')}${clr('accent5', '5B9BD5')}${clr('accent6', '70AD47')}${clr('hlink', '0563C1')}${clr('folHlink', '954F72')}</a:clrScheme>` +
    `<a:fontScheme name="Trawl"><a:majorFont><a:latin typeface="Calibri Light"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont><a:minorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>` +
    `<a:fmtScheme name="Trawl"><a:fillStyleLst>${fill}${fill}${fill}</a:fillStyleLst><a:lnStyleLst>${line}${line}${line}</a:lnStyleLst>` +
    `<a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst>` +
    `<a:bgFillStyleLst>${fill}${fill}${fill}</a:bgFillStyleLst></a:fmtScheme></a:themeElements></a:theme>`;
  const presentation = `${XML}<p:presentation xmlns:a="${NS.a}" xmlns:r="${NS.r}" xmlns:p="${NS.p}"><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>` +
    // Slide order differs from the part names on purpose: the reader must follow sldIdLst.
    `<p:sldIdLst><p:sldId id="256" r:id="rId2"/><p:sldId id="257" r:id="rId4"/><p:sldId id="258" r:id="rId3"/></p:sldIdLst>` +
    `<p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>`;
  const ct = 'application/vnd.openxmlformats-officedocument.presentationml';
  const slideRels = (extra = []) => rels([['rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml'], ...extra]);
  writeZip('deck.pptx', {
    '[Content_Types].xml': contentTypes({
      'ppt/presentation.xml': `${ct}.presentation.main+xml`,
      'ppt/slideMasters/slideMaster1.xml': `${ct}.slideMaster+xml`,
      'ppt/slideLayouts/slideLayout1.xml': `${ct}.slideLayout+xml`,
      'ppt/slides/slide1.xml': `${ct}.slide+xml`,
      'ppt/slides/slide2.xml': `${ct}.slide+xml`,
      'ppt/slides/slide3.xml': `${ct}.slide+xml`,
      'ppt/theme/theme1.xml': 'application/vnd.openxmlformats-officedocument.theme+xml',
      'docProps/core.xml': CT_CORE,
      'docProps/app.xml': CT_APP,
    }),
    '_rels/.rels': packageRels('ppt/presentation.xml'),
    'ppt/presentation.xml': presentation,
    'ppt/_rels/presentation.xml.rels': rels([
      ['rId1', 'slideMaster', 'slideMasters/slideMaster1.xml'],
      ['rId2', 'slide', 'slides/slide1.xml'],
      ['rId3', 'slide', 'slides/slide2.xml'],
      ['rId4', 'slide', 'slides/slide3.xml'],
      ['rId5', 'theme', 'theme/theme1.xml'],
    ]),
    'ppt/slideMasters/slideMaster1.xml': master,
    'ppt/slideMasters/_rels/slideMaster1.xml.rels': rels([['rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml'], ['rId2', 'theme', '../theme/theme1.xml']]),
    'ppt/slideLayouts/slideLayout1.xml': layout,
    'ppt/slideLayouts/_rels/slideLayout1.xml.rels': rels([['rId1', 'slideMaster', '../slideMasters/slideMaster1.xml']]),
    'ppt/theme/theme1.xml': theme,
    'ppt/slides/slide1.xml': slides[0],
    'ppt/slides/_rels/slide1.xml.rels': slideRels(),
    'ppt/slides/slide2.xml': slides[1],
    'ppt/slides/_rels/slide2.xml.rels': slideRels(),
    'ppt/slides/slide3.xml': slides[2],
    'ppt/slides/_rels/slide3.xml.rels': slideRels([['rId2', 'hyperlink', 'https://example.com/docs', true]]),
    'docProps/core.xml': coreXml({ title: 'Trawl Deck', creator: 'Alan Turing' }),
    'docProps/app.xml': appXml('<Slides>3</Slides>'),
  });
}

// ---------------------------------------------------------------- ODT
function odt() {
  const ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ' +
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
    'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
    'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.3"';
  const content = `${XML}<office:document-content ${ns}><office:automatic-styles>` +
    `<style:style style:name="T1" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style>` +
    `<style:style style:name="T2" style:family="text"><style:text-properties fo:font-style="italic"/></style:style>` +
    `<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Title"/>` +
    `<text:list-style style:name="L1"><text:list-level-style-bullet text:level="1" text:bullet-char="•"/><text:list-level-style-bullet text:level="2" text:bullet-char="◦"/></text:list-style>` +
    `<text:list-style style:name="L2"><text:list-level-style-number text:level="1" style:num-format="1" style:num-suffix="."/><text:list-level-style-bullet text:level="2" text:bullet-char="•"/></text:list-style>` +
    `</office:automatic-styles><office:body><office:text>` +
    `<text:p text:style-name="P1">Field Notes</text:p>` +
    `<text:h text:outline-level="1">Overview</text:h>` +
    `<text:p>Plain text with <text:span text:style-name="T1">bold</text:span>, <text:span text:style-name="T2">italic</text:span>,<text:s text:c="3"/>spaces` +
    `<text:tab/>and a <text:a xlink:type="simple" xlink:href="https://example.com/odt">link</text:a>.<text:note text:id="ftn1" text:note-class="footnote"><text:note-citation>1</text:note-citation>` +
    `<text:note-body><text:p>A footnote.</text:p></text:note-body></text:note><text:line-break/>Second line &amp; more.</text:p>` +
    `<text:h text:outline-level="2">Lists</text:h>` +
    `<text:list text:style-name="L1"><text:list-item><text:p>Alpha</text:p><text:list><text:list-item><text:p>Alpha one</text:p></text:list-item></text:list></text:list-item>` +
    `<text:list-item><text:p>Beta</text:p></text:list-item></text:list>` +
    `<text:list text:style-name="L2"><text:list-item><text:p>First</text:p></text:list-item><text:list-item><text:p>Second</text:p></text:list-item></text:list>` +
    `<text:h text:outline-level="2">Table</text:h>` +
    `<table:table table:name="Table1"><table:table-column table:number-columns-repeated="3"/>` +
    `<table:table-header-rows><table:table-row><table:table-cell office:value-type="string"><text:p>Name</text:p></table:table-cell><table:table-cell><text:p>Count</text:p></table:table-cell><table:table-cell><text:p>Note</text:p></table:table-cell></table:table-row></table:table-header-rows>` +
    `<table:table-row><table:table-cell><text:p>Oak</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="3"><text:p>3</text:p></table:table-cell><table:table-cell table:number-rows-spanned="2"><text:p>Shared note</text:p></table:table-cell></table:table-row>` +
    `<table:table-row><table:table-cell table:number-columns-spanned="2"><text:p>Spanning two</text:p></table:table-cell><table:covered-table-cell/><table:covered-table-cell/></table:table-row>` +
    `</table:table><text:p>Done.</text:p></office:text></office:body></office:document-content>`;
  const styles = `${XML}<office:document-styles ${ns}><office:styles><style:style style:name="Title" style:family="paragraph"/>` +
    `<style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:default-outline-level="1"/></office:styles></office:document-styles>`;
  const meta = `${XML}<office:document-meta ${ns}><office:meta><dc:title>Field Notes</dc:title><dc:creator>Mary Somerville</dc:creator><meta:initial-creator>Mary Somerville</meta:initial-creator>` +
    `<dc:subject>Botany</dc:subject><meta:keyword>trees</meta:keyword><meta:keyword>notes</meta:keyword><dc:language>en-US</dc:language>` +
    `<meta:creation-date>2024-01-02T03:04:05</meta:creation-date><dc:date>2024-02-03T04:05:06</dc:date><meta:document-statistic meta:page-count="2" meta:word-count="40"/></office:meta></office:document-meta>`;
  const manifest = `${XML}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">` +
    `<manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="application/vnd.oasis.opendocument.text"/>` +
    `<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>` +
    `<manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>`;
  writeZip('notes.odt', {
    mimetype: 'application/vnd.oasis.opendocument.text',
    'content.xml': content,
    'styles.xml': styles,
    'meta.xml': meta,
    'META-INF/manifest.xml': manifest,
  }, { stored: ['mimetype'] });
}

// ---------------------------------------------------------------- ODS, ODP
const ODF_NS = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" ' +
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ' +
  'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.3"';

function odfPackage(name, mediaType, body, automaticStyles = '') {
  const manifest = `${XML}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">` +
    `<manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="${mediaType}"/>` +
    `<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>`;
  writeZip(name, {
    mimetype: mediaType,
    'content.xml': `${XML}<office:document-content ${ODF_NS}><office:automatic-styles>${automaticStyles}</office:automatic-styles><office:body>${body}</office:body></office:document-content>`,
    'meta.xml': `${XML}<office:document-meta ${ODF_NS}><office:meta><dc:title>${name}</dc:title></office:meta></office:document-meta>`,
    'META-INF/manifest.xml': manifest,
  }, { stored: ['mimetype'] });
}

function ods() {
  const cell = (text, attrs = '') => `<table:table-cell office:value-type="string"${attrs}><text:p>${text}</text:p></table:table-cell>`;
  const body = `<office:spreadsheet>` +
    `<table:table table:name="Inventory" table:style-name="ta1"><table:table-column table:number-columns-repeated="3"/>` +
    `<table:table-row>${cell('Item')}${cell('Count')}${cell('Since')}<table:table-cell table:number-columns-repeated="16381"/></table:table-row>` +
    `<table:table-row><table:table-cell office:value-type="string"><text:p>Bolts &amp; nuts</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="1500"><text:p>1,500</text:p></table:table-cell>` +
    `<table:table-cell office:value-type="date" office:date-value="2024-01-31"><text:p>01/31/24</text:p></table:table-cell><table:table-cell table:number-columns-repeated="16381"/></table:table-row>` +
    `<table:table-row>${cell('Spanning total', ' table:number-columns-spanned="2"')}<table:covered-table-cell/>${cell('n/a')}</table:table-row>` +
    `<table:table-row table:number-rows-repeated="1048573"><table:table-cell table:number-columns-repeated="16384"/></table:table-row></table:table>` +
    `<table:table table:name="Secret" table:style-name="ta2"><table:table-row>${cell('hidden value')}</table:table-row></table:table>` +
    `</office:spreadsheet>`;
  odfPackage('stock.ods', 'application/vnd.oasis.opendocument.spreadsheet', body,
    `<style:style style:name="ta1" style:family="table"><style:table-properties table:display="true"/></style:style>` +
    `<style:style style:name="ta2" style:family="table"><style:table-properties table:display="false"/></style:style>`);
}

function odp() {
  const frame = (cls, inner) => `<draw:frame presentation:class="${cls}" svg:x="1cm" svg:y="1cm" svg:width="20cm" svg:height="3cm"><draw:text-box>${inner}</draw:text-box></draw:frame>`;
  const body = `<office:presentation>` +
    `<draw:page draw:name="page1">${frame('title', '<text:p>Hello ODP</text:p>')}${frame('outline', '<text:list><text:list-item><text:p>Point one</text:p><text:list><text:list-item><text:p>Detail</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p>Point two</text:p></text:list-item></text:list>')}` +
    `${frame('page-number', '<text:p>1</text:p>')}</draw:page>` +
    `<draw:page draw:name="page2">${frame('title', '<text:p>Second</text:p>')}${frame('subtitle', '<text:p>Closing words</text:p>')}<presentation:notes><draw:frame><draw:text-box><text:p>speaker notes</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>` +
    `</office:presentation>`;
  odfPackage('talk.odp', 'application/vnd.oasis.opendocument.presentation', body);
}

docx();
xlsx();
ods();
odp();
pptx();
odt();
