/**
 * Transcribes the seed catalogue (`wiki-query-catalogue.md`, "Endpoints") into
 * `catalogue/paraminfo.json`, in the shape of MediaWiki's `action=paraminfo&formatversion=2&helpformat=none`.
 *
 * The seed's data lives below as readable tables, one entry per numbered module, in the seed's order.
 * This script does not read the seed: `paraminfo.test.ts` parses the seed on its own and checks the JSON
 * against it. Run with `npx tsx catalogue/transcribe.ts`; output is deterministic.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------------------------------------
// Representation choices (documented in catalogue/README.md)
// ---------------------------------------------------------------------------------------------------------

/** The seed writes the licence address as `{license_url}` and help pages as `{help_url}`; kept literally. */
const LICENSE_URL = '{license_url}';
const HELP_URL = '{help_url}';

type SourceKey = 'core' | 'translate' | 'oath';
const SOURCES: Record<SourceKey, { source: string; sourcename: string; licensetag: string }> = {
  core: { source: 'MediaWiki', sourcename: 'MediaWiki', licensetag: 'GPL-2.0-or-later' },
  translate: { source: 'Translate', sourcename: 'Translate', licensetag: 'GPL-2.0-or-later' },
  oath: { source: 'OATHAuth', sourcename: 'OATHAuth', licensetag: 'GPL-2.0-or-later AND GPL-3.0-or-later' },
};

/** Multi-valued parameters: lowlimit, highlimit, limit (seed "Limits"). */
const MULTI_LIMITS = { lowlimit: 50, highlimit: 500, limit: 50 } as const;
/** Every `limit` parameter unless stated (seed "Notation"). */
const LIMIT_BOUNDS = { min: 1, max: 500, highmax: 5000 } as const;
const USER_SUBTYPES = ['name', 'ip', 'temp', 'interwiki', 'id'] as const;
const EXTRA_NS = [-2, -1] as const;

// ---------------------------------------------------------------------------------------------------------
// Shared value lists (seed "Shared value lists")
// ---------------------------------------------------------------------------------------------------------

const GROUPS = ['bot', 'bureaucrat', 'interface-admin', 'suppress', 'sysop'];

const REVPROP = [
  'comment',
  'content',
  'contentmodel',
  'flags',
  'ids',
  'parsedcomment',
  'roles',
  'sha1',
  'size',
  'slotsha1',
  'slotsize',
  'tags',
  'timestamp',
  'user',
  'userid',
  'parsetree',
];
const REVPROP_DEFAULT = 'ids|timestamp|flags|comment|user';
const REVPROP_DEPRECATED = ['parsetree'];

const CF = [
  'application/json',
  'application/octet-stream',
  'application/unknown',
  'application/x-binary',
  'text/css',
  'text/javascript',
  'text/plain',
  'text/unknown',
  'text/x-wiki',
  'unknown/unknown',
];

const PROTO = [
  '',
  'bitcoin',
  'ftp',
  'ftps',
  'geo',
  'git',
  'gopher',
  'http',
  'https',
  'irc',
  'ircs',
  'magnet',
  'mailto',
  'matrix',
  'mms',
  'news',
  'nntp',
  'redis',
  'sftp',
  'sip',
  'sips',
  'sms',
  'ssh',
  'svn',
  'tel',
  'telnet',
  'urn',
  'worldwind',
  'xmpp',
];

const RIGHTS_A = [
  'apihighlimits',
  'applychangetags',
  'autoconfirmed',
  'autocreateaccount',
  'autopatrol',
  'badoath',
  'bigdelete',
  'block',
  'blockemail',
  'bot',
  'browsearchive',
  'changeemail',
  'changetags',
  'confirmemail',
  'createaccount',
  'createpage',
  'createtalk',
  'delete',
  'delete-redirect',
  'deletechangetags',
  'deletedhistory',
  'deletedtext',
  'deletelogentry',
  'deleterevision',
  'edit',
  'editcontentmodel',
  'editinterface',
  'editmyoptions',
  'editmyprivateinfo',
  'editmyusercss',
  'editmyuserjs',
  'editmyuserjson',
  'editmyuserjsredirect',
  'editmywatchlist',
  'editprotected',
  'editsemiprotected',
  'editsitecss',
  'editsitejs',
  'editsitejson',
  'editusercss',
  'edituserjs',
  'edituserjson',
  'hideuser',
  'import',
  'importupload',
  'ipblock-exempt',
  'linkpurge',
  'mailpassword',
  'managechangetags',
  'markbotedits',
  'mergehistory',
  'minoredit',
  'move',
  'move-categorypages',
  'move-rootuserpages',
  'move-subpages',
  'movefile',
  'nominornewtalk',
  'noratelimit',
  'oathauth-api-all',
  'oathauth-disable-for-user',
  'oathauth-enable',
  'oathauth-verify-user',
  'oathauth-view-log',
  'override-export-depth',
  'pagelang',
  'pagetranslation',
  'patrol',
  'patrolmarks',
  'protect',
  'purge',
  'read',
  'renameuser',
  'renderfile',
  'renderfile-nonstandard',
  'reupload',
  'reupload-own',
  'reupload-shared',
  'rollback',
  'sendemail',
  'siteadmin',
  'stashbasehtml',
  'stashedit',
  'suppressionlog',
  'suppressredirect',
  'suppressrevision',
  'translate',
  'translate-groupreview',
  'translate-import',
  'translate-manage',
  'translate-messagereview',
  'unblockself',
  'undelete',
  'unwatchedpages',
  'upload',
  'upload_by_url',
  'userrights',
  'userrights-interwiki',
  'viewmyprivateinfo',
  'viewmywatchlist',
  'viewsuppressed',
  'writeapi',
];

const RIGHTS_B_REMOVED = [
  'badoath',
  'changeemail',
  'confirmemail',
  'linkpurge',
  'mailpassword',
  'purge',
  'renderfile',
  'renderfile-nonstandard',
  'stashbasehtml',
  'stashedit',
];
const RIGHTS_B = RIGHTS_A.filter((r) => !RIGHTS_B_REMOVED.includes(r));

const LOGACTIONS = [
  'block/block',
  'block/reblock',
  'block/unblock',
  'contentmodel/change',
  'contentmodel/new',
  'create/create',
  'delete/delete',
  'delete/delete_redir',
  'delete/delete_redir2',
  'delete/event',
  'delete/restore',
  'delete/revision',
  'import/interwiki',
  'import/translatable-bundle',
  'import/upload',
  'managetags/activate',
  'managetags/create',
  'managetags/deactivate',
  'managetags/delete',
  'merge/merge',
  'messagebundle/deletefnok',
  'messagebundle/deletefok',
  'messagebundle/movenok',
  'messagebundle/moveok',
  'move/move',
  'move/move_redir',
  'newusers/autocreate',
  'newusers/byemail',
  'newusers/create',
  'newusers/create2',
  'newusers/newusers',
  'oath/*',
  'pagelang/pagelang',
  'pagetranslation/associate',
  'pagetranslation/deletefnok',
  'pagetranslation/deletefok',
  'pagetranslation/deletelnok',
  'pagetranslation/deletelok',
  'pagetranslation/discourage',
  'pagetranslation/dissociate',
  'pagetranslation/encourage',
  'pagetranslation/mark',
  'pagetranslation/movenok',
  'pagetranslation/moveok',
  'pagetranslation/prioritylanguages',
  'pagetranslation/unmark',
  'patrol/autopatrol',
  'patrol/patrol',
  'protect/modify',
  'protect/move_prot',
  'protect/protect',
  'protect/unprotect',
  'renameuser/renameuser',
  'rights/autopromote',
  'rights/rights',
  'suppress/block',
  'suppress/delete',
  'suppress/event',
  'suppress/reblock',
  'suppress/revision',
  'tag/update',
  'translationreview/group',
  'translationreview/message',
  'upload/overwrite',
  'upload/revert',
  'upload/upload',
];

// Value lists used by more than one module.
const ASC = ['ascending', 'descending'];
const NEWER = ['newer', 'older'];
const FILTERREDIR = ['all', 'nonredirects', 'redirects'];

// ---------------------------------------------------------------------------------------------------------
// Parameter constructors
// ---------------------------------------------------------------------------------------------------------

type Info = { name: string; values?: number[] };

/** A parameter as the tables write it; `index` and the always-present keys are added on output. */
interface P {
  name: string;
  type: string | string[];
  default?: string | number;
  required?: true;
  multi?: true;
  deprecated?: true;
  sensitive?: true;
  allowsduplicates?: true;
  allspecifier?: string;
  min?: number;
  max?: number;
  highmax?: number;
  extranamespaces?: readonly number[];
  subtypes?: readonly string[];
  deprecatedvalues?: string[];
  info?: Info[];
  templatevars?: Record<string, string>;
}

/** Options a table entry may add: default, REQ, DEP, deprecated values, info, and the rarer flags. */
type O = Partial<Omit<P, 'name' | 'type'>>;

const str = (name: string, o: O = {}): P => ({ name, type: 'string', ...o });
const int = (name: string, o: O = {}): P => ({ name, type: 'integer', ...o });
const bool = (name: string, o: O = {}): P => ({ name, type: 'boolean', ...o });
const ts = (name: string, o: O = {}): P => ({ name, type: 'timestamp', ...o });
const title = (name: string, o: O = {}): P => ({ name, type: 'title', ...o });
/** `[a|b]`: one of the values. */
const one = (name: string, values: string[], o: O = {}): P => ({ name, type: values, ...o });
/** `M[a|b]`: several of the values. */
const many = (name: string, values: string[], o: O = {}): P => ({ name, type: values, multi: true, ...o });
/** `M(s)`. */
const strs = (name: string, o: O = {}): P => ({ name, type: 'string', multi: true, ...o });
/** `M(i)`. */
const ints = (name: string, o: O = {}): P => ({ name, type: 'integer', multi: true, ...o });
/** `limit=10` unless the options say otherwise (pass `default: undefined` for "no default"). */
const limit = (o: O = {}): P => ({ name: 'limit', type: 'limit', default: 10, ...LIMIT_BOUNDS, ...o });
/** `NS`: one namespace. */
const ns = (o: O = {}): P => ({ name: 'namespace', type: 'namespace', ...o });
/** `NSX`: one namespace, also -2 and -1. */
const nsx = (o: O = {}): P => ({ name: 'namespace', type: 'namespace', extranamespaces: EXTRA_NS, ...o });
/** `NS*`: several namespaces, `*` for all. */
const nsAll = (o: O = {}): P => ({ name: 'namespace', type: 'namespace', multi: true, allspecifier: '*', ...o });
/** `NS* and also -2, -1`. */
const nsAllX = (o: O = {}): P => nsAll({ extranamespaces: EXTRA_NS, ...o });
/** `USER`. */
const user = (name: string, o: O = {}): P => ({ name, type: 'user', subtypes: USER_SUBTYPES, ...o });
/** `M USER`. */
const users = (name: string, o: O = {}): P => user(name, { multi: true, ...o });

const continue_ = str('continue');
const dirAsc = one('dir', ASC, { default: 'ascending' });
const dirOlder = (o: O = {}) => one('dir', NEWER, { default: 'older', ...o });

const REQ = { required: true } as const;
const DEP = { deprecated: true } as const;
const ALL = { allspecifier: '*' } as const;
const info = (...names: string[]): O => ({ info: names.map((name) => ({ name })) });
const modes = (...values: number[]): O => ({ info: [{ name: 'modes', values }] });

// REVPARAMS (alldeletedrevisions, allrevisions, deletedrevisions, revisions). The templated parameter
// `contentformat-{slot}` sits right after `slots`: real paraminfo numbers it 3 and the plain parameters
// skip that index (see the allrevisions capture).
const contentformatSlot: P = { name: 'contentformat-{slot}', templatevars: { slot: 'slots' }, type: CF };
const revparams = (limitInfo: O = {}): P[] => [
  many('prop', REVPROP, { default: REVPROP_DEFAULT, deprecatedvalues: REVPROP_DEPRECATED }),
  many('slots', ['main'], ALL),
  contentformatSlot,
  limit({ default: undefined, ...limitInfo }),
  bool('expandtemplates', DEP),
  bool('generatexml', DEP),
  bool('parse', DEP),
  str('section'),
  str('diffto', DEP),
  str('difftotext', DEP),
  bool('difftotextpst', DEP),
  one('contentformat', CF, DEP),
];

// "Same parameters as" targets.
const alllinksParams = (nsDefault: number): P[] => [
  continue_,
  str('from'),
  str('to'),
  str('prefix'),
  bool('unique'),
  many('prop', ['ids', 'title'], { default: 'title' }),
  nsx({ default: nsDefault }),
  limit(),
  dirAsc,
];
const backlinksParams = (): P[] => [
  str('title'),
  int('pageid'),
  continue_,
  nsAll(),
  dirAsc,
  one('filterredir', FILTERREDIR, { default: 'all' }),
  limit(),
  bool('redirect'),
];
const fileusageParams = (): P[] => [
  many('prop', ['pageid', 'redirect', 'title'], { default: 'pageid|title|redirect' }),
  nsAll(),
  many('show', ['!redirect', 'redirect']),
  limit(),
  continue_,
];

// ---------------------------------------------------------------------------------------------------------
// The 69 modules, in the seed's order
// ---------------------------------------------------------------------------------------------------------

interface M {
  name: string;
  group: 'list' | 'prop' | 'meta';
  prefix: string;
  /** G: the generator marker. */
  generator?: true;
  /** The module itself is deprecated (deletedrevs). */
  deprecated?: true;
  /** Marked internal (oath). */
  internal?: true;
  /** Defaults to core. */
  source?: SourceKey;
  /** False for authmanagerinfo and tokens. */
  readrights?: false;
  /** False for the modules whose helpurls the seed says are empty. */
  helpurls?: false;
  params: P[];
}

const G = { generator: true } as const;
const TRANSLATE = { source: 'translate', helpurls: false } as const;

const MODULES: M[] = [
  /* 1 */ {
    name: 'allcategories',
    group: 'list',
    prefix: 'ac',
    ...G,
    params: [
      str('from'),
      continue_,
      str('to'),
      str('prefix'),
      dirAsc,
      int('min'),
      int('max'),
      limit(),
      many('prop', ['hidden', 'size'], { default: '' }),
    ],
  },
  /* 2 */ {
    name: 'alldeletedrevisions',
    group: 'list',
    prefix: 'adr',
    ...G,
    params: [
      ...revparams(),
      user('user'),
      nsAll(),
      ts('start', info('useronly')),
      ts('end', info('useronly')),
      dirOlder(),
      str('from', info('nonuseronly')),
      str('to', info('nonuseronly')),
      str('prefix', info('nonuseronly')),
      user('excludeuser', info('nonuseronly')),
      str('tag'),
      continue_,
      bool('generatetitles'),
    ],
  },
  /* 3 */ {
    name: 'allfileusages',
    group: 'list',
    prefix: 'af',
    ...G,
    params: [
      continue_,
      str('from'),
      str('to'),
      str('prefix'),
      bool('unique'),
      many('prop', ['ids', 'title'], { default: 'title' }),
      limit(),
      dirAsc,
    ],
  },
  /* 4 */ {
    name: 'allimages',
    group: 'list',
    prefix: 'ai',
    ...G,
    params: [
      one('sort', ['name', 'timestamp'], { default: 'name' }),
      one('dir', ['ascending', 'descending', 'newer', 'older'], { default: 'ascending' }),
      str('from'),
      str('to'),
      continue_,
      ts('start'),
      ts('end'),
      many(
        'prop',
        [
          'badfile',
          'bitdepth',
          'canonicaltitle',
          'comment',
          'commonmetadata',
          'dimensions',
          'extmetadata',
          'mediatype',
          'metadata',
          'mime',
          'parsedcomment',
          'sha1',
          'size',
          'timestamp',
          'url',
          'user',
          'userid',
        ],
        { default: 'timestamp|url' },
      ),
      str('prefix'),
      int('minsize'),
      int('maxsize'),
      str('sha1'),
      str('sha1base36'),
      user('user'),
      one('filterbots', ['all', 'bots', 'nobots'], { default: 'all' }),
      strs('mime'),
      limit(),
    ],
  },
  /* 5 */ { name: 'alllinks', group: 'list', prefix: 'al', ...G, params: alllinksParams(0) },
  /* 6 */ {
    name: 'allmessages',
    group: 'meta',
    prefix: 'am',
    params: [
      strs('messages', { default: '*' }),
      many('prop', ['default']),
      bool('enableparser'),
      bool('nocontent'),
      bool('includelocal'),
      strs('args', { allowsduplicates: true }),
      str('filter'),
      one('customised', ['all', 'modified', 'unmodified'], { default: 'all' }),
      str('lang'),
      str('from'),
      str('to'),
      str('title'),
      str('prefix'),
    ],
  },
  /* 7 */ {
    name: 'allpages',
    group: 'list',
    prefix: 'ap',
    ...G,
    params: [
      str('from'),
      continue_,
      str('to'),
      str('prefix'),
      ns({ default: 0 }),
      one('filterredir', FILTERREDIR, { default: 'all' }),
      one('filterlanglinks', ['all', 'withlanglinks', 'withoutlanglinks'], { default: 'all' }),
      int('minsize'),
      int('maxsize'),
      many('prtype', ['edit', 'move', 'upload']),
      many('prlevel', ['', 'autoconfirmed', 'sysop']),
      one('prfiltercascade', ['all', 'cascading', 'noncascading'], { default: 'all' }),
      one('prexpiry', ['all', 'definite', 'indefinite'], { default: 'all' }),
      limit(),
      dirAsc,
    ],
  },
  /* 8 */ {
    name: 'allredirects',
    group: 'list',
    prefix: 'ar',
    ...G,
    params: [
      continue_,
      str('from'),
      str('to'),
      str('prefix'),
      bool('unique'),
      many('prop', ['fragment', 'ids', 'interwiki', 'title'], { default: 'title' }),
      nsx({ default: 0 }),
      limit(),
      dirAsc,
    ],
  },
  /* 9 */ {
    name: 'allrevisions',
    group: 'list',
    prefix: 'arv',
    ...G,
    params: [
      ...revparams(),
      user('user'),
      nsAll(),
      ts('start'),
      ts('end'),
      dirOlder(),
      user('excludeuser'),
      continue_,
      bool('generatetitles'),
    ],
  },
  /* 10 */ { name: 'alltransclusions', group: 'list', prefix: 'at', ...G, params: alllinksParams(10) },
  /* 11 */ {
    name: 'allusers',
    group: 'list',
    prefix: 'au',
    params: [
      str('from'),
      str('to'),
      str('prefix'),
      dirAsc,
      many('group', GROUPS),
      many('excludegroup', GROUPS),
      many('rights', RIGHTS_A),
      many('prop', ['blockinfo', 'centralids', 'editcount', 'groups', 'implicitgroups', 'registration', 'rights']),
      limit(),
      bool('witheditsonly'),
      bool('activeusers'),
      str('attachedwiki'),
    ],
  },
  /* 12 */ {
    name: 'authmanagerinfo',
    group: 'meta',
    prefix: 'ami',
    readrights: false,
    params: [
      str('securitysensitiveoperation'),
      one('requestsfor', [
        'change',
        'create',
        'create-continue',
        'link',
        'link-continue',
        'login',
        'login-continue',
        'remove',
        'unlink',
      ]),
      bool('mergerequestfields'),
      one('messageformat', ['html', 'none', 'raw', 'wikitext'], { default: 'wikitext' }),
    ],
  },
  /* 13 */ { name: 'backlinks', group: 'list', prefix: 'bl', ...G, params: backlinksParams() },
  /* 14 */ {
    name: 'blocks',
    group: 'list',
    prefix: 'bk',
    params: [
      ts('start'),
      ts('end'),
      dirOlder(),
      ints('ids'),
      users('users', { subtypes: ['name', 'ip', 'temp', 'cidr'] }),
      str('ip'),
      limit(),
      many('prop', ['by', 'byid', 'expiry', 'flags', 'id', 'range', 'reason', 'restrictions', 'timestamp', 'user', 'userid'], {
        default: 'id|user|by|timestamp|expiry|reason|flags',
      }),
      many('show', ['!account', '!ip', '!range', '!temp', 'account', 'ip', 'range', 'temp']),
      continue_,
    ],
  },
  /* 15 */ {
    name: 'categories',
    group: 'prop',
    prefix: 'cl',
    ...G,
    params: [
      many('prop', ['hidden', 'sortkey', 'timestamp']),
      many('show', ['!hidden', 'hidden']),
      limit(),
      continue_,
      strs('categories'),
      dirAsc,
    ],
  },
  /* 16 */ { name: 'categoryinfo', group: 'prop', prefix: 'ci', params: [continue_] },
  /* 17 */ {
    name: 'categorymembers',
    group: 'list',
    prefix: 'cm',
    ...G,
    params: [
      str('title'),
      int('pageid'),
      many('prop', ['ids', 'sortkey', 'sortkeyprefix', 'timestamp', 'title', 'type'], { default: 'ids|title' }),
      nsAll(),
      many('type', ['file', 'page', 'subcat'], { default: 'page|subcat|file' }),
      continue_,
      limit(),
      one('sort', ['sortkey', 'timestamp'], { default: 'sortkey' }),
      one('dir', ['asc', 'ascending', 'desc', 'descending', 'newer', 'older'], { default: 'ascending' }),
      ts('start'),
      ts('end'),
      str('starthexsortkey'),
      str('endhexsortkey'),
      str('startsortkeyprefix'),
      str('endsortkeyprefix'),
      str('startsortkey', DEP),
      str('endsortkey', DEP),
    ],
  },
  /* 18 */ {
    name: 'contributors',
    group: 'prop',
    prefix: 'pc',
    params: [
      many('group', GROUPS),
      many('excludegroup', GROUPS),
      many('rights', RIGHTS_B),
      many('excluderights', RIGHTS_B),
      limit(),
      continue_,
    ],
  },
  /* 19 */ {
    name: 'deletedrevisions',
    group: 'prop',
    prefix: 'drv',
    ...G,
    params: [...revparams(), ts('start'), ts('end'), dirOlder(), str('tag'), user('user'), user('excludeuser'), continue_],
  },
  /* 20 */ {
    name: 'deletedrevs',
    group: 'list',
    prefix: 'dr',
    ...G,
    deprecated: true,
    params: [
      ts('start', modes(1, 2)),
      ts('end', modes(1, 2)),
      dirOlder(modes(1, 3)),
      str('from', modes(3)),
      str('to', modes(3)),
      str('prefix', modes(3)),
      bool('unique', modes(3)),
      ns({ default: 0, ...modes(3) }),
      str('tag'),
      user('user'),
      user('excludeuser'),
      many(
        'prop',
        ['comment', 'content', 'len', 'minor', 'parentid', 'parsedcomment', 'revid', 'sha1', 'tags', 'user', 'userid', 'token'],
        { default: 'user|comment', deprecatedvalues: ['token'] },
      ),
      limit(),
      continue_,
    ],
  },
  /* 21 */ {
    name: 'duplicatefiles',
    group: 'prop',
    prefix: 'df',
    ...G,
    params: [limit(), continue_, dirAsc, bool('localonly')],
  },
  /* 22 */ {
    name: 'embeddedin',
    group: 'list',
    prefix: 'ei',
    ...G,
    params: [
      str('title'),
      int('pageid'),
      continue_,
      nsAll(),
      dirAsc,
      one('filterredir', FILTERREDIR, { default: 'all' }),
      limit(),
    ],
  },
  /* 23 */ {
    name: 'extlinks',
    group: 'prop',
    prefix: 'el',
    params: [limit(), continue_, one('protocol', PROTO, { default: '' }), str('query'), bool('expandurl', DEP)],
  },
  /* 24 */ {
    name: 'exturlusage',
    group: 'list',
    prefix: 'eu',
    ...G,
    params: [
      many('prop', ['ids', 'title', 'url'], { default: 'ids|title|url' }),
      continue_,
      one('protocol', PROTO, { default: '' }),
      str('query'),
      nsAll(),
      limit(),
      bool('expandurl', DEP),
    ],
  },
  /* 25 */ {
    name: 'filearchive',
    group: 'list',
    prefix: 'fa',
    params: [
      str('from'),
      str('to'),
      str('prefix'),
      dirAsc,
      str('sha1'),
      str('sha1base36'),
      many(
        'prop',
        [
          'archivename',
          'bitdepth',
          'description',
          'dimensions',
          'mediatype',
          'metadata',
          'mime',
          'parseddescription',
          'sha1',
          'size',
          'timestamp',
          'user',
        ],
        { default: 'timestamp' },
      ),
      limit(),
      continue_,
    ],
  },
  /* 26 */ {
    name: 'filerepoinfo',
    group: 'meta',
    prefix: 'fri',
    params: [filerepoinfoProp()],
  },
  /* 27 */ { name: 'fileusage', group: 'prop', prefix: 'fu', ...G, params: fileusageParams() },
  /* 28 */ {
    name: 'imageinfo',
    group: 'prop',
    prefix: 'ii',
    params: [
      many(
        'prop',
        [
          'archivename',
          'badfile',
          'bitdepth',
          'canonicaltitle',
          'comment',
          'commonmetadata',
          'dimensions',
          'extmetadata',
          'mediatype',
          'metadata',
          'mime',
          'parsedcomment',
          'sha1',
          'size',
          'thumbmime',
          'timestamp',
          'uploadwarning',
          'url',
          'user',
          'userid',
        ],
        { default: 'timestamp|user' },
      ),
      limit({ default: 1 }),
      ts('start'),
      ts('end'),
      int('urlwidth', { default: -1 }),
      int('urlheight', { default: -1 }),
      str('metadataversion', { default: '1' }),
      str('extmetadatalanguage', { default: 'en' }),
      bool('extmetadatamultilang'),
      strs('extmetadatafilter'),
      str('urlparam', { default: '' }),
      str('badfilecontexttitle'),
      continue_,
      bool('localonly'),
    ],
  },
  /* 29 */ {
    name: 'images',
    group: 'prop',
    prefix: 'im',
    ...G,
    params: [limit(), continue_, strs('images'), dirAsc],
  },
  /* 30 */ { name: 'imageusage', group: 'list', prefix: 'iu', ...G, params: backlinksParams() },
  /* 31 */ {
    name: 'info',
    group: 'prop',
    prefix: 'in',
    params: [
      many(
        'prop',
        [
          'associatedpage',
          'displaytitle',
          'editintro',
          'linkclasses',
          'notificationtimestamp',
          'preloadcontent',
          'protection',
          'subjectid',
          'talkid',
          'url',
          'varianttitles',
          'visitingwatchers',
          'watched',
          'watchers',
          'preload',
          'readable',
        ],
        { deprecatedvalues: ['preload', 'readable'] },
      ),
      title('linkcontext', { default: 'Main Page' }),
      strs('testactions'),
      one('testactionsdetail', ['boolean', 'full', 'quick'], { default: 'boolean' }),
      bool('testactionsautocreate'),
      str('preloadcustom', info('preloadcontentonly')),
      strs('preloadparams', info('preloadcontentonly')),
      bool('preloadnewsection', info('preloadcontentonly')),
      one('editintrostyle', ['lessframes', 'moreframes'], { default: 'moreframes', ...info('editintroonly') }),
      strs('editintroskip', info('editintroonly')),
      str('editintrocustom', info('editintroonly')),
      continue_,
    ],
  },
  /* 32 */ {
    name: 'iwbacklinks',
    group: 'list',
    prefix: 'iwbl',
    ...G,
    params: [str('prefix'), str('title'), continue_, limit(), many('prop', ['iwprefix', 'iwtitle'], { default: '' }), dirAsc],
  },
  /* 33 */ {
    name: 'iwlinks',
    group: 'prop',
    prefix: 'iw',
    params: [many('prop', ['url']), str('prefix'), str('title'), dirAsc, limit(), continue_, bool('url', DEP)],
  },
  /* 34 */ {
    name: 'langbacklinks',
    group: 'list',
    prefix: 'lbl',
    ...G,
    params: [str('lang'), str('title'), continue_, limit(), many('prop', ['lllang', 'lltitle'], { default: '' }), dirAsc],
  },
  /* 35 */ {
    name: 'langlinks',
    group: 'prop',
    prefix: 'll',
    params: [
      many('prop', ['autonym', 'langname', 'url']),
      str('lang'),
      str('title'),
      dirAsc,
      str('inlanguagecode', { default: 'en' }),
      limit(),
      continue_,
      bool('url', DEP),
    ],
  },
  /* 36 */ {
    name: 'languageinfo',
    group: 'meta',
    prefix: 'li',
    helpurls: false,
    params: [
      many('prop', ['autonym', 'bcp47', 'code', 'dir', 'fallbacks', 'name', 'variantnames', 'variants'], {
        default: 'code',
      }),
      strs('code', { default: '*' }),
      continue_,
    ],
  },
  /* 37 */ {
    name: 'languagestats',
    group: 'meta',
    prefix: 'ls',
    ...TRANSLATE,
    params: [str('offset', { default: '0' }), str('language', REQ), str('group')],
  },
  /* 38 */ {
    name: 'links',
    group: 'prop',
    prefix: 'pl',
    ...G,
    params: [nsAllX(), limit(), continue_, strs('titles'), dirAsc],
  },
  /* 39 */ { name: 'linkshere', group: 'prop', prefix: 'lh', ...G, params: fileusageParams() },
  /* 40 */ {
    name: 'logevents',
    group: 'list',
    prefix: 'le',
    params: [
      many('prop', ['comment', 'details', 'ids', 'parsedcomment', 'tags', 'timestamp', 'title', 'type', 'user', 'userid'], {
        default: 'ids|title|type|user|timestamp|comment|details',
      }),
      one('type', [
        '',
        'block',
        'contentmodel',
        'create',
        'delete',
        'import',
        'managetags',
        'merge',
        'messagebundle',
        'move',
        'newusers',
        'oath',
        'pagelang',
        'pagetranslation',
        'patrol',
        'protect',
        'renameuser',
        'rights',
        'suppress',
        'tag',
        'translationreview',
        'upload',
      ]),
      one('action', LOGACTIONS),
      ts('start'),
      ts('end'),
      dirOlder(),
      user('user'),
      str('title'),
      nsx(),
      str('prefix'),
      str('tag'),
      limit(),
      continue_,
    ],
  },
  /* 41 */ {
    name: 'managemessagegroups',
    group: 'meta',
    prefix: 'mmg',
    ...TRANSLATE,
    params: [str('groupId', REQ), str('messageKey', REQ), str('changesetName', { default: 'default' })],
  },
  /* 42 */ {
    name: 'messagecollection',
    group: 'list',
    prefix: 'mc',
    ...G,
    ...TRANSLATE,
    params: [
      str('group', REQ),
      str('language', { default: 'en' }),
      limit({ default: 500, min: 1, max: 5000, highmax: undefined }),
      str('offset', { default: '' }),
      strs('filter', { default: '!optional|!ignored' }),
      many('prop', ['definition', 'properties', 'tags', 'translation', 'revision'], {
        default: 'definition|translation',
        deprecatedvalues: ['revision'],
      }),
    ],
  },
  /* 43 */ {
    name: 'messagegroups',
    group: 'meta',
    prefix: 'mg',
    ...TRANSLATE,
    params: [
      int('depth', { default: 100 }),
      strs('filter', { default: '' }),
      one('format', ['flat', 'tree'], { default: 'flat' }),
      int('iconsize', { default: 64 }),
      many(
        'prop',
        [
          'class',
          'description',
          'exists',
          'icon',
          'id',
          'label',
          'namespace',
          'priority',
          'priorityforce',
          'prioritylangs',
          'sourcelanguage',
          'workflowstates',
        ],
        { default: 'id|label|description|class|exists' },
      ),
      str('root', { default: '' }),
      str('languageFilter', { default: '' }),
    ],
  },
  /* 44 */ {
    name: 'messagegroupstats',
    group: 'meta',
    prefix: 'mgs',
    ...TRANSLATE,
    params: [str('offset', { default: '0' }), str('group', REQ), bool('suppresscomplete'), bool('suppressempty')],
  },
  /* 45 */ {
    name: 'messagetranslations',
    group: 'meta',
    prefix: 'mt',
    ...TRANSLATE,
    params: [str('title', REQ), int('offset', { default: 0 })],
  },
  /* 46 */ {
    name: 'mystashedfiles',
    group: 'list',
    prefix: 'msf',
    params: [many('prop', ['size', 'type'], { default: '' }), limit(), continue_],
  },
  /* 47 */ {
    name: 'oath',
    group: 'meta',
    prefix: 'oath',
    internal: true,
    source: 'oath',
    helpurls: false,
    params: [user('user', { subtypes: ['name', 'ip', 'temp', 'cidr', 'interwiki'] }), str('reason')],
  },
  /* 48 */ { name: 'pagepropnames', group: 'list', prefix: 'ppn', params: [continue_, limit()] },
  /* 49 */ { name: 'pageprops', group: 'prop', prefix: 'pp', params: [continue_, strs('prop')] },
  /* 50 */ {
    name: 'pageswithprop',
    group: 'list',
    prefix: 'pwp',
    ...G,
    params: [str('propname', REQ), many('prop', ['ids', 'title', 'value'], { default: 'ids|title' }), continue_, limit(), dirAsc],
  },
  /* 51 */ {
    name: 'prefixsearch',
    group: 'list',
    prefix: 'ps',
    ...G,
    params: [str('search', REQ), nsAll({ default: 0 }), limit(), int('offset', { default: 0, min: 0 })],
  },
  /* 52 */ {
    name: 'protectedtitles',
    group: 'list',
    prefix: 'pt',
    ...G,
    params: [
      nsAll(),
      many('level', ['autoconfirmed', 'sysop']),
      limit(),
      dirOlder(),
      ts('start'),
      ts('end'),
      many('prop', ['comment', 'expiry', 'level', 'parsedcomment', 'timestamp', 'user', 'userid'], {
        default: 'timestamp|level',
      }),
      continue_,
    ],
  },
  /* 53 */ {
    name: 'querypage',
    group: 'list',
    prefix: 'qp',
    ...G,
    params: [
      one(
        'page',
        [
          'Ancientpages',
          'BrokenRedirects',
          'Deadendpages',
          'DoubleRedirects',
          'Fewestrevisions',
          'ListDuplicatedFiles',
          'Listredirects',
          'Lonelypages',
          'Longpages',
          'MediaStatistics',
          'Mostcategories',
          'Mostimages',
          'Mostinterwikis',
          'Mostlinked',
          'Mostlinkedcategories',
          'Mostlinkedtemplates',
          'Mostrevisions',
          'Shortpages',
          'Uncategorizedcategories',
          'Uncategorizedimages',
          'Uncategorizedpages',
          'Uncategorizedtemplates',
          'Unusedcategories',
          'Unusedimages',
          'Unusedtemplates',
          'Unwatchedpages',
          'Wantedcategories',
          'Wantedfiles',
          'Wantedpages',
          'Wantedtemplates',
          'Withoutinterwiki',
        ],
        REQ,
      ),
      int('offset', { default: 0 }),
      limit(),
    ],
  },
  /* 54 */ {
    name: 'random',
    group: 'list',
    prefix: 'rn',
    ...G,
    params: [
      nsAll(),
      one('filterredir', FILTERREDIR, { default: 'nonredirects' }),
      bool('redirect', DEP),
      limit({ default: 1 }),
      continue_,
    ],
  },
  /* 55 */ {
    name: 'recentchanges',
    group: 'list',
    prefix: 'rc',
    ...G,
    params: [
      ts('start'),
      ts('end'),
      dirOlder(),
      nsAllX(),
      user('user'),
      user('excludeuser'),
      str('tag'),
      many(
        'prop',
        [
          'comment',
          'flags',
          'ids',
          'loginfo',
          'parsedcomment',
          'patrolled',
          'redirect',
          'sha1',
          'sizes',
          'tags',
          'timestamp',
          'title',
          'user',
          'userid',
        ],
        { default: 'title|timestamp|ids' },
      ),
      many('show', [
        '!anon',
        '!autopatrolled',
        '!bot',
        '!minor',
        '!patrolled',
        '!redirect',
        'anon',
        'autopatrolled',
        'bot',
        'minor',
        'patrolled',
        'redirect',
        'unpatrolled',
      ]),
      limit(),
      many('type', ['categorize', 'edit', 'external', 'log', 'new'], { default: 'edit|new|log|categorize' }),
      bool('toponly'),
      str('title'),
      continue_,
      bool('generaterevisions'),
      one('slot', ['main']),
    ],
  },
  /* 56 */ {
    name: 'redirects',
    group: 'prop',
    prefix: 'rd',
    ...G,
    params: [
      many('prop', ['fragment', 'pageid', 'title'], { default: 'pageid|title' }),
      nsAll(),
      many('show', ['!fragment', 'fragment']),
      limit(),
      continue_,
    ],
  },
  /* 57 */ {
    name: 'revisions',
    group: 'prop',
    prefix: 'rv',
    ...G,
    params: [
      ...revparams(info('singlepageonly')),
      int('startid', info('singlepageonly')),
      int('endid', info('singlepageonly')),
      ts('start', info('singlepageonly')),
      ts('end', info('singlepageonly')),
      dirOlder(info('singlepageonly')),
      user('user', info('singlepageonly')),
      user('excludeuser', info('singlepageonly')),
      str('tag'),
      continue_,
    ],
  },
  /* 58 */ {
    name: 'search',
    group: 'list',
    prefix: 'sr',
    ...G,
    params: [
      str('search', REQ),
      nsAll({ default: 0 }),
      limit(),
      int('offset', { default: 0, min: 0 }),
      one('what', ['nearmatch', 'text', 'title']),
      many('info', ['rewrittenquery', 'suggestion', 'totalhits'], { default: 'totalhits|suggestion|rewrittenquery' }),
      many(
        'prop',
        [
          'categorysnippet',
          'extensiondata',
          'isfilematch',
          'redirectsnippet',
          'redirecttitle',
          'sectionsnippet',
          'sectiontitle',
          'size',
          'snippet',
          'timestamp',
          'titlesnippet',
          'wordcount',
          'hasrelated',
          'score',
        ],
        { default: 'size|wordcount|timestamp|snippet', deprecatedvalues: ['hasrelated', 'score'] },
      ),
      bool('interwiki'),
      bool('enablerewrites'),
      one('sort', ['relevance'], { default: 'relevance' }),
    ],
  },
  /* 59 */ {
    name: 'siteinfo',
    group: 'meta',
    prefix: 'si',
    params: [
      many(
        'prop',
        [
          'autocreatetempuser',
          'autopromote',
          'autopromoteonce',
          'clientlibraries',
          'dbrepllag',
          'defaultoptions',
          'extensions',
          'extensiontags',
          'fileextensions',
          'functionhooks',
          'general',
          'interwikimap',
          'languages',
          'languagevariants',
          'libraries',
          'magicwords',
          'namespacealiases',
          'namespaces',
          'protocols',
          'restrictions',
          'rightsinfo',
          'showhooks',
          'skins',
          'specialpagealiases',
          'statistics',
          'uploaddialog',
          'usergroups',
          'variables',
        ],
        { default: 'general' },
      ),
      one('filteriw', ['!local', 'local']),
      bool('showalldb'),
      bool('numberingroup'),
      str('inlanguagecode'),
    ],
  },
  /* 60 */ {
    name: 'stashimageinfo',
    group: 'prop',
    prefix: 'sii',
    params: [
      strs('filekey'),
      strs('sessionkey', DEP),
      many(
        'prop',
        [
          'badfile',
          'bitdepth',
          'canonicaltitle',
          'commonmetadata',
          'dimensions',
          'extmetadata',
          'metadata',
          'mime',
          'sha1',
          'size',
          'thumbmime',
          'timestamp',
          'url',
        ],
        { default: 'timestamp|url' },
      ),
      int('urlwidth', { default: -1 }),
      int('urlheight', { default: -1 }),
      str('urlparam', { default: '' }),
    ],
  },
  /* 61 */ {
    name: 'tags',
    group: 'list',
    prefix: 'tg',
    params: [
      continue_,
      limit(),
      many('prop', ['active', 'defined', 'description', 'displayname', 'hitcount', 'source'], { default: '' }),
    ],
  },
  /* 62 */ {
    name: 'templates',
    group: 'prop',
    prefix: 'tl',
    ...G,
    params: [nsAllX(), limit(), continue_, strs('templates'), dirAsc],
  },
  /* 63 */ {
    name: 'tokens',
    group: 'meta',
    prefix: '',
    readrights: false,
    params: [
      many('type', ['createaccount', 'csrf', 'login', 'patrol', 'rollback', 'userrights', 'watch'], {
        default: 'csrf',
        ...ALL,
      }),
    ],
  },
  /* 64 */ { name: 'transcludedin', group: 'prop', prefix: 'ti', ...G, params: fileusageParams() },
  /* 65 */ {
    name: 'usercontribs',
    group: 'list',
    prefix: 'uc',
    params: [
      limit(),
      ts('start'),
      ts('end'),
      continue_,
      users('user', { subtypes: ['name', 'ip', 'temp', 'interwiki'] }),
      ints('userids'),
      str('userprefix'),
      str('iprange'),
      dirOlder(),
      nsAll(),
      many('prop', ['comment', 'flags', 'ids', 'parsedcomment', 'patrolled', 'size', 'sizediff', 'tags', 'timestamp', 'title'], {
        default: 'ids|title|timestamp|comment|size|flags',
      }),
      many('show', [
        '!autopatrolled',
        '!minor',
        '!new',
        '!patrolled',
        '!top',
        'autopatrolled',
        'minor',
        'new',
        'patrolled',
        'top',
      ]),
      str('tag'),
      bool('toponly', DEP),
    ],
  },
  /* 66 */ {
    name: 'userinfo',
    group: 'meta',
    prefix: 'ui',
    params: [
      many(
        'prop',
        [
          'acceptlang',
          'blockinfo',
          'cancreateaccount',
          'centralids',
          'changeablegroups',
          'editcount',
          'email',
          'groupmemberships',
          'groups',
          'hasmsg',
          'implicitgroups',
          'latestcontrib',
          'options',
          'ratelimits',
          'realname',
          'registrationdate',
          'rights',
          'theoreticalratelimits',
          'unreadcount',
        ],
        ALL,
      ),
      str('attachedwiki'),
    ],
  },
  /* 67 */ {
    name: 'users',
    group: 'list',
    prefix: 'us',
    params: [
      many('prop', [
        'blockinfo',
        'cancreate',
        'centralids',
        'editcount',
        'emailable',
        'gender',
        'groupmemberships',
        'groups',
        'implicitgroups',
        'registration',
        'rights',
      ]),
      str('attachedwiki'),
      strs('users'),
      ints('userids'),
    ],
  },
  /* 68 */ {
    name: 'watchlist',
    group: 'list',
    prefix: 'wl',
    ...G,
    params: [
      bool('allrev'),
      ts('start'),
      ts('end'),
      nsAll(),
      user('user'),
      user('excludeuser'),
      dirOlder(),
      limit(),
      many(
        'prop',
        [
          'comment',
          'expiry',
          'flags',
          'ids',
          'loginfo',
          'notificationtimestamp',
          'parsedcomment',
          'patrol',
          'sizes',
          'tags',
          'timestamp',
          'title',
          'user',
          'userid',
        ],
        { default: 'ids|title|flags' },
      ),
      many('show', [
        '!anon',
        '!autopatrolled',
        '!bot',
        '!minor',
        '!patrolled',
        '!unread',
        'anon',
        'autopatrolled',
        'bot',
        'minor',
        'patrolled',
        'unread',
      ]),
      many('type', ['categorize', 'edit', 'external', 'log', 'new'], { default: 'edit|new|log|categorize' }),
      user('owner', { subtypes: ['name'] }),
      str('token', { sensitive: true }),
      continue_,
    ],
  },
  /* 69 */ {
    name: 'watchlistraw',
    group: 'list',
    prefix: 'wr',
    ...G,
    params: [
      continue_,
      nsAll(),
      limit(),
      many('prop', ['changed']),
      many('show', ['!changed', 'changed']),
      user('owner', { subtypes: ['name'] }),
      str('token', { sensitive: true }),
      dirAsc,
      str('fromtitle'),
      str('totitle'),
    ],
  },
];

/** filerepoinfo's prop: "default is all fifteen values", joined in the listed order. */
function filerepoinfoProp(): P {
  const values = [
    'apiurl',
    'articlepath',
    'canUpload',
    'descriptionCacheExpiry',
    'displayname',
    'favicon',
    'fetchDescription',
    'initialCapital',
    'local',
    'name',
    'rootUrl',
    'scriptDirUrl',
    'server',
    'thumbUrl',
    'url',
  ];
  return many('prop', values, { default: values.join('|') });
}

// ---------------------------------------------------------------------------------------------------------
// Output: paraminfo formatversion=2 key order (ApiParamInfo + ParamValidator::getParamInfo)
// ---------------------------------------------------------------------------------------------------------

function emitParam(p: P, index: number): Record<string, unknown> {
  const out: Record<string, unknown> = { index, name: p.name };
  if (p.templatevars) out.templatevars = p.templatevars;
  out.type = p.type;
  out.required = p.required === true;
  if (p.deprecated) out.deprecated = true;
  if (p.sensitive) out.sensitive = true;
  if (p.default !== undefined) out.default = p.default;
  out.multi = p.multi === true;
  if (p.multi) Object.assign(out, MULTI_LIMITS);
  if (p.allowsduplicates) out.allowsduplicates = true;
  if (p.allspecifier !== undefined) out.allspecifier = p.allspecifier;
  if (p.min !== undefined) out.min = p.min;
  if (p.max !== undefined) out.max = p.max;
  if (p.highmax !== undefined) out.highmax = p.highmax;
  if (p.extranamespaces) out.extranamespaces = [...p.extranamespaces];
  if (p.subtypes) out.subtypes = [...p.subtypes];
  if (p.deprecatedvalues) out.deprecatedvalues = p.deprecatedvalues;
  if (p.info) out.info = p.info;
  return out;
}

function emitModule(m: M): Record<string, unknown> {
  const src = SOURCES[m.source ?? 'core'];
  const out: Record<string, unknown> = {
    name: m.name,
    path: `query+${m.name}`,
    group: m.group,
    prefix: m.prefix,
    source: src.source,
    sourcename: src.sourcename,
    licensetag: src.licensetag,
    licenselink: LICENSE_URL,
  };
  if (m.deprecated) out.deprecated = true;
  if (m.internal) out.internal = true;
  if (m.readrights !== false) out.readrights = true;
  if (m.generator) out.generator = true;
  out.helpurls = m.helpurls === false ? [] : [HELP_URL];
  const parameters: Record<string, unknown>[] = [];
  const templatedparameters: Record<string, unknown>[] = [];
  m.params.forEach((p, i) => {
    (p.templatevars ? templatedparameters : parameters).push(emitParam(p, i + 1));
  });
  out.parameters = parameters;
  out.templatedparameters = templatedparameters;
  return out;
}

function buildCatalogue(): { paraminfo: { helpformat: 'none'; modules: Record<string, unknown>[] } } {
  return { paraminfo: { helpformat: 'none', modules: MODULES.map(emitModule) } };
}

const here = path.dirname(fileURLToPath(import.meta.url));
const target = path.join(here, 'paraminfo.json');
writeFileSync(target, `${JSON.stringify(buildCatalogue(), null, 2)}\n`);
const templated = MODULES.reduce((n, m) => n + m.params.filter((p) => p.templatevars).length, 0);
const plain = MODULES.reduce((n, m) => n + m.params.length, 0) - templated;
console.log(
  `wrote ${path.relative(process.cwd(), target)}: ${MODULES.length} modules, ${plain} parameters, ${templated} templated`,
);
