"""The English words around a name that tell its type: a title before it, a relation ("my sister Anna"),
a preposition ("in Lisbon", "at Stripe"), a verb of use ("switched to Neovim"), a word after it ("the
Atlas migration", "Oak Park Elementary"). Hand-written; tuned on bench/entity_cases/dev only."""

from __future__ import annotations

from .entity import EntityType

TITLES = frozenset(
    "dr doctor mr mrs ms miss prof professor aunt auntie uncle grandma grandpa granny nana sir dame coach".split()
)
ABBREVIATIONS = frozenset("dr mr mrs ms prof st mt jr sr".split())  # "Dr. Chen": the dot ends no sentence
RELATIONS = frozenset(
    "sister brother mom mum dad mother father wife husband partner son daughter friend cousin niece nephew "
    "boss manager coworker co-worker colleague teammate mentor coach trainer therapist doctor physio neighbour "
    "neighbor roommate flatmate boyfriend girlfriend fiance fiancé fiancee aunt uncle grandson granddaughter "
    "grandmother grandfather tutor teacher landlord landlady babysitter nanny cleaner walker sister-in-law "
    "brother-in-law mother-in-law father-in-law son-in-law daughter-in-law kids kid twins baby child "
    "named called advisor supervisor dentist gp vet accountant lawyer".split()
)
# Next to a name, what the thing it names does: "Anna and I", "Olga, my tutor", "Tariq from the team".
PERSON_AFTER = frozenset(
    "and from just recommended says said wants told taught helps helped lends turns got started".split()
)
PLACE_BEFORE = frozenset(
    "in to near around visit visited visiting from born raised live lives living "
    "moved moving relocating relocate fly flying flew trip across outside along".split()
)
ORG_BEFORE = frozenset(
    "at for joined join joining interned intern works worked working job consulting left "
    "quit founded co-founded started".split()
)
PRODUCT_BEFORE = frozenset(
    "use using used uses switched switch bought buy buying installed install run runs running deploy "
    "deployed on with watch watching listen listening play playing read reading learn learning write "
    "writing built build track tracking log store keep draft drafting monitor evaluating testing trying "
    "a an prefer over edit editing shoot shooting drive driving commute cook bake host hosting "
    "via my our new old".split()
)
# A strong word after a name makes it a project even if the name is known ("the Phoenix rewrite").
PROJECT_AFTER_STRONG = frozenset(
    "project migration rewrite refactor cutover launch rollout redesign initiative overhaul migrations".split()
)
PROJECT_AFTER_WEAK = frozenset(
    "team roadmap dashboard platform api integration review proposal alerts docs "
    "onboarding report budget service pipeline effort program programme release "
    "milestone sprint".split()
)
PROJECT_BEFORE = frozenset("project codenamed".split())
# What a "called"/"named" thing is: a book or a blog is a project, a band an organisation, else a person.
CALLED_PROJECT = frozenset("novel book memoir blog podcast app game script thesis".split())
CALLED_ORG = frozenset("band choir company startup club team shop bakery restaurant".split())

ORG_SUFFIXES = frozenset(
    "inc inc. corp corporation ltd llc plc gmbh labs lab group university college school elementary academy "
    "high hospital clinic centre center bank club foundation society institute analytics robotics coffee "
    "conservatory church council association partners capital ventures studio studios technologies "
    "systems media health insurance airlines motors pharma consulting agency press kitchen bakery cafe "
    "café gym boulders rovers strikers fc united city-council preschool kindergarten nursery".split()
)
PLACE_SUFFIXES = frozenset(
    "park square street st road avenue ave lane lake mountain mountains beach bay "
    "island islands river valley bridge heights hill hills county district village "
    "coast canyon falls harbour harbor".split()
)
PLACE_PREFIXES = frozenset("lake mount mt st saint san santa fort port".split())

# Capitalised words that name none of our types.
NOT_NAMES = frozenset(
    "i i'm i've i'd i'll ok okay mom mum dad mommy daddy grandma grandpa granny nana sir lol "
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july "
    "august september october november december christmas easter thanksgiving halloween new year eve "
    "english chinese mandarin cantonese spanish french german italian portuguese russian japanese korean "
    "arabic hindi dutch greek turkish polish swedish american british canadian european asian african "
    "mba phd msc bsc ceo cto cfo coo vp hr pm sre qa cs it ui ux ai ml api etl tv gp uk-based "
    "series 5g 4g 3g".split()
)
# Ordinary words that start sentences: a capitalised one here is no name.
STARTERS = frozenset(
    "the a an my our your his her their its this that these those we you he she they it there here "
    "every each last next this tomorrow yesterday today tonight finally honestly just also still "
    "went started starting moving got get need trying thinking been love hate nothing everything someone "
    "nobody work working so and but or if when because since after before then now maybe probably "
    "actually basically really please thanks thank hi hey well yes no not never always sometimes usually "
    "what why how who where which "
    # what chat turns start with: "Yeah John", "Wow Joanna", "Can I", "Glad I"
    "yeah yep yup wow hey hi hello bye goodbye thanks congrats congratulations glad wish can could would "
    "should will awesome cool sure oh ah omg lol haha nice great sounds totally absolutely definitely exactly "
    "right hmm anyway btw dear aw aww ooh wait look sorry welcome cheers".split()
)

# Verbs after which a listed name in lower case is the tool ("we use slack and discord").
TOOL_VERBS = frozenset(
    "use using used uses switched switch bought installed run runs running deploy deployed "
    "watch watching listen listening play playing learn learning write writing track store "
    "keep monitor prefer edit editing quit left".split()
)

MODEL_WORDS = frozenset("mini pro max plus ultra air se lite ii iii iv vi xl".split())  # not "I", "V"


def type_by_suffix(last_word: str, first_word: str) -> EntityType | None:
    word, first = last_word.casefold().rstrip("."), first_word.casefold()
    if word in ORG_SUFFIXES:
        return EntityType.ORGANIZATION
    if word in PLACE_SUFFIXES or first in PLACE_PREFIXES:
        return EntityType.PLACE
    return None
