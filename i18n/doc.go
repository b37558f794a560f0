// Package i18n is the box's one language catalogue: every text the guest
// pages, the console, the live wall, the mails, the printed signs,
// guestbook.txt and the dates of the album say, in every language the box
// speaks.
//
// The catalogue is one JSON file per language in assets/web/locales,
// named by its code (fr.json). A file is an object of sections ("meta",
// "guest", "wall", "console", "mail", "signs", "guestbook", "dates",
// "setup", "portal"),
// each an object of flat keys to texts; "meta" holds the language's own
// name ("name": "Français") and its place in the lists of languages
// ("order": "20", a whole number; lower first). The languages are the files present: adding
// one is adding its file, with every key English has (a test fails
// otherwise). Texts name their blanks in braces ("Hello {name},"); a count
// is a plural blank, "{n, plural, one {# photo} other {# photos}}", one
// form per CLDR plural category of the language or exact value (=0), #
// the number: the pages choose with Intl.PluralRules, Go with
// [PluralCategory] in [Language.Format] (docs/decisions/events.md, "Every
// page and sign in its reader's language").
//
// English (en.json) is the reference: it holds every key, a text a
// language lacks is the English one, and an unknown language reads
// English. The console's keys are its English texts themselves, so its
// English section maps each text to itself (a test holds it; a plural is
// keyed by its plural form) and the English console fetches no catalogue
// at all; the other sections use short identifiers.
//
// Go code reads a text by its full key, "section.key" ("mail.hello"),
// written out as one literal where it is used, so that a test can find
// every key in the sources. The pages read their section through [Web],
// which adds /locales/<lang>/<section>.json and /locales/index.json (the
// codes and names) to the served files; assets/web/js/i18n.js is their one
// loader.
package i18n
