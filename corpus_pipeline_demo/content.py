"""The prose of the demo website: a small community garden association.

Real sentences rather than filler, so that language detection, boilerplate
removal and near-duplicate detection behave as they would on a real site.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Article:
    """One post or documentation page of the demo website."""

    slug: str
    title: str
    paragraphs: tuple[str, ...]
    tags: tuple[str, ...] = ()


POSTS: tuple[Article, ...] = (
    Article(
        "post-01",
        "Opening day at the riverside plots",
        (
            "More than sixty neighbours came to the riverside plots on Saturday morning to turn the first spadefuls of "
            "soil. The association had spent the winter negotiating a lease with the city, and the mood was one of "
            "relief as much as excitement.",
            "Each household received a raised bed of two metres by one, a bag of compost and a small booklet on crop "
            "rotation. Children painted the wooden name boards while the older members showed newcomers how to test "
            "the soil with a jar of water.",
            "The plots will be open every day from dawn until dusk. Tools are kept in the green shed near the gate, "
            "and the key code is given to members at the welcome desk.",
        ),
        ("gardening", "community"),
    ),
    Article(
        "post-02",
        "Why we water in the evening",
        (
            "During the hottest weeks of July, a surprising amount of water never reaches the roots. Watering late in "
            "the evening lets the soil soak up moisture before the sun returns, and it keeps leaves dry during the day.",
            "We measured the difference last summer with two identical beds of courgettes. The bed watered at seven in "
            "the evening needed a third less water than the one watered at noon, and its plants wilted far less often.",
            "Please remember that the hoses are shared. Close the valve after use and coil the hose on its hook so that "
            "nobody trips over it in the dark.",
        ),
        ("gardening", "water"),
    ),
    Article(
        "post-03",
        "A bicycle repair workshop every first Sunday",
        (
            "Many members arrive at the garden by bicycle, and a flat tyre should not be a reason to stay at home. From "
            "September, volunteers will run a free repair workshop on the first Sunday of every month.",
            "Bring your bicycle, and we will show you how to patch an inner tube, adjust brakes and oil a chain. The "
            "association has bought a stand, a set of spanners and a pump with a pressure gauge.",
            "The workshop is about learning rather than a free service: you will do the repair yourself, with somebody "
            "beside you who has done it a hundred times.",
        ),
        ("cycling", "community"),
    ),
    Article(
        "post-04",
        "Saving seeds from tomatoes",
        (
            "Tomato seeds are among the easiest to save, provided the variety is not a hybrid. Choose a ripe, healthy "
            "fruit from a plant that grew well, and scoop the seeds with their jelly into a glass jar.",
            "Leave the jar on a windowsill for three days. A thin layer of mould will form: this fermentation removes "
            "the coating that stops seeds from germinating inside the fruit.",
            "Rinse the seeds in a sieve, spread them on a plate and let them dry for a week. Stored in a paper envelope "
            "in a cool cupboard, they will keep for at least four years.",
        ),
        ("gardening", "seeds"),
    ),
    Article(
        "post-05",
        "The compost bins are full again",
        (
            "Our three compost bins filled up much faster than expected this spring. Grass cuttings arrived in large "
            "quantities after the first mowing, and grass alone turns into a wet, smelly mat.",
            "A good heap needs a mix of green material, such as peelings and fresh leaves, and brown material, such as "
            "dry leaves, straw and torn cardboard. Aim for roughly equal volumes of each.",
            "We will turn the heaps together on the last Saturday of the month. Gloves and forks are provided, and the "
            "finished compost from last year will be shared among everyone who helps.",
        ),
        ("compost",),
    ),
    Article(
        "post-06",
        "Bees, borage and the wildflower strip",
        (
            "Along the northern fence we sowed a strip of wildflowers: borage, phacelia, cornflowers and poppies. By "
            "June it was humming with honeybees, bumblebees and a few solitary bees we had never noticed before.",
            "Pollinators visit the vegetable beds on their way, and several members reported better harvests of beans "
            "and squash than in previous years.",
            "The strip is not mown until the end of September, when the seeds have fallen. Please do not pick the "
            "flowers, however tempting the bouquet.",
        ),
        ("gardening", "wildlife"),
    ),
    Article(
        "post-07",
        "Rainwater tanks installed behind the shed",
        (
            "Two tanks of one thousand litres each now collect the rain that falls on the roof of the tool shed. A "
            "simple filter keeps leaves out, and a tap at the bottom fills watering cans.",
            "After a single storm in August both tanks were full. That is enough to water the herb beds for about "
            "three weeks without touching the mains supply.",
            "In winter the tanks will be emptied and their taps left open, so that frost cannot crack them.",
        ),
        ("water",),
    ),
    Article(
        "post-08",
        "Cycling to the market with a cargo trailer",
        (
            "Every Thursday evening a small group of members takes surplus vegetables to the neighbourhood market. "
            "Since spring we have used a cargo trailer that hitches to any bicycle.",
            "The trailer carries up to forty kilograms, which is plenty for crates of salad, beans and herbs. Riding "
            "with it takes some practice on corners, so we recommend a first trip on a quiet street.",
            "The money raised at the market pays for seeds, tools and the annual insurance of the association.",
        ),
        ("cycling",),
    ),
    Article(
        "post-09",
        "Slugs without poison",
        (
            "Slugs are the most common complaint in our members' survey. Pellets are banned on the plots because they "
            "also kill hedgehogs and the beetles that eat slug eggs.",
            "What works instead: evening patrols with a torch, boards laid on the ground as traps, and copper tape "
            "around the most precious seedlings. Beer traps catch many slugs but also ground beetles, so use them "
            "sparingly.",
            "The best long-term defence is a garden full of predators. The pond we dug last autumn already hosts frogs "
            "and a family of slow worms.",
        ),
        ("gardening", "wildlife"),
    ),
    Article(
        "post-10",
        "Annual general meeting: what was decided",
        (
            "Forty-two members attended the annual general meeting in the school hall. The accounts were approved "
            "unanimously, and the membership fee stays at fifteen euros for another year.",
            "The meeting elected a new treasurer and agreed to apply for a grant to build a wheelchair-accessible "
            "raised bed near the entrance.",
            "Minutes of the meeting and the full financial report are available as a PDF in the documents section.",
        ),
        ("community",),
    ),
    Article(
        "post-11",
        "Winter tasks for a resting garden",
        (
            "Even when nothing grows, there is work to do. Beds can be covered with a thick layer of leaves or a green "
            "manure such as winter rye, which protects the soil from heavy rain.",
            "Winter is also the season to repair fences, sharpen tools and plan next year's rotation on paper. We keep "
            "a large map of the plots in the shed for that purpose.",
            "Fruit trees are pruned on dry days in February, before the sap rises. Ask the orchard team before cutting "
            "anything.",
        ),
        ("gardening", "seeds"),
    ),
)

# French translations of the first three posts (hreflang alternates).
FRENCH_POSTS: tuple[Article, ...] = (
    Article(
        "post-01",
        "Journée d'ouverture aux parcelles de la rivière",
        (
            "Plus de soixante voisins sont venus samedi matin aux parcelles de la rivière pour retourner les premières "
            "pelletées de terre. L'association avait passé l'hiver à négocier un bail avec la mairie, et l'ambiance "
            "mêlait soulagement et enthousiasme.",
            "Chaque foyer a reçu un bac surélevé de deux mètres sur un, un sac de compost et un petit livret sur la "
            "rotation des cultures. Les enfants ont peint les panneaux de bois pendant que les anciens montraient aux "
            "nouveaux venus comment tester la terre avec un bocal d'eau.",
            "Les parcelles sont ouvertes tous les jours de l'aube au crépuscule. Les outils sont rangés dans la cabane "
            "verte près du portail, et le code du cadenas est donné aux membres à l'accueil.",
        ),
    ),
    Article(
        "post-02",
        "Pourquoi nous arrosons le soir",
        (
            "Pendant les semaines les plus chaudes de juillet, une grande partie de l'eau n'atteint jamais les racines. "
            "Arroser tard le soir permet à la terre de s'imprégner avant le retour du soleil et garde les feuilles "
            "sèches pendant la journée.",
            "Nous avons mesuré la différence l'été dernier avec deux bacs identiques de courgettes. Le bac arrosé à "
            "sept heures du soir a eu besoin d'un tiers d'eau en moins que celui arrosé à midi.",
            "N'oubliez pas que les tuyaux sont partagés. Fermez la vanne après usage et enroulez le tuyau sur son "
            "crochet pour que personne ne trébuche dans l'obscurité.",
        ),
    ),
    Article(
        "post-03",
        "Un atelier de réparation de vélos chaque premier dimanche",
        (
            "Beaucoup de membres viennent au jardin à vélo, et une crevaison ne devrait pas être une raison de rester "
            "chez soi. Dès septembre, des bénévoles animeront un atelier de réparation gratuit le premier dimanche de "
            "chaque mois.",
            "Apportez votre vélo et nous vous montrerons comment réparer une chambre à air, régler les freins et "
            "huiler une chaîne. L'association a acheté un pied d'atelier, des clés et une pompe avec manomètre.",
            "L'atelier sert à apprendre plutôt qu'à faire réparer : vous ferez la réparation vous-même, avec à côté de "
            "vous quelqu'un qui l'a déjà faite cent fois.",
        ),
    ),
)

DOCS: tuple[Article, ...] = (
    Article(
        "membership",
        "How to become a member",
        (
            "Membership is open to anyone who lives or works in the district. Fill in the form at the welcome desk or "
            "send it by post, together with the annual fee.",
            "New members join the waiting list for a plot. While waiting, they can help in the shared beds and take "
            "part in every workshop and harvest festival.",
        ),
    ),
    Article(
        "plot-rules",
        "Rules for plot holders",
        (
            "Each plot must be cultivated at least from April to October. A plot left untended for two months, "
            "without a message to the committee, may be offered to the next person on the waiting list.",
            "Chemical pesticides and synthetic fertilisers are not allowed anywhere in the garden. Paths between "
            "plots must stay clear and at least sixty centimetres wide.",
        ),
    ),
    Article(
        "tool-shed",
        "Using the tool shed",
        (
            "The shed holds spades, forks, rakes, wheelbarrows and a lawnmower. Tools are cleaned and returned to "
            "their hooks after use; muddy tools rust and spread disease between beds.",
            "Broken tools go in the red box by the door with a note describing the problem. The maintenance team "
            "checks the box every Saturday.",
        ),
    ),
    Article(
        "safety",
        "Safety in the garden",
        (
            "The first aid kit hangs on the left wall of the shed, next to the fire extinguisher. Check that your "
            "tetanus vaccination is up to date before working the soil.",
            "Children are welcome but must stay with an adult near the pond and the compost heaps. Ladders are only "
            "used with a second person holding them.",
        ),
    ),
    Article(
        "calendar",
        "Sowing and planting calendar",
        (
            "Broad beans and peas go in as early as March. Tomatoes, courgettes and squash wait until mid-May, after "
            "the last frost, and are best raised indoors from seed six weeks earlier.",
            "Autumn is the time for garlic, onion sets and green manures. The calendar pinned in the shed lists every "
            "crop with its sowing window and the expected harvest.",
        ),
    ),
    Article(
        "contact-committee",
        "Contacting the committee",
        (
            "The committee meets on the second Tuesday of each month. Questions and proposals can be left in the "
            "letterbox at the gate or raised at the open hour before each meeting.",
            "Urgent matters, such as a broken water pipe or a damaged fence, should be reported by telephone to the "
            "site coordinator, whose number is posted on the shed door.",
        ),
    ),
)

# The annual report PDF: (section title, pages of text). Sections start on pages 1, 2, 4 and 5.
REPORT_SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Introduction",
        (
            "This report presents the activities and accounts of the Riverside Community Garden association for the "
            "past year. It was approved by the annual general meeting.",
        ),
    ),
    (
        "Activities",
        (
            "The garden welcomed twenty new households. Workshops on seed saving, composting and bicycle repair were "
            "held every month, each attended by fifteen people on average.",
            "The wildflower strip and the pond increased the number of pollinators and amphibians observed on the "
            "site. Harvests of beans and squash were the best since the garden opened.",
        ),
    ),
    (
        "Accounts",
        (
            "Income came from membership fees, sales at the neighbourhood market and a small municipal grant. "
            "Expenses covered seeds, tools, insurance and the two rainwater tanks.",
        ),
    ),
    (
        "Outlook",
        (
            "Next year the association will build an accessible raised bed near the entrance and extend the orchard "
            "with four apple trees of local varieties.",
        ),
    ),
)

# The scanned letter: an image-only PDF whose words the OCR must find.
SCANNED_LETTER: tuple[str, ...] = (
    "Riverside Community Garden",
    "Letter to the members",
    "Dear gardeners, the orchard will receive",
    "four apple trees in November. Volunteers",
    "are needed to dig the planting holes.",
    "Thank you for your generous help.",
)
SCANNED_WORDS: tuple[str, ...] = ("orchard", "apple", "volunteers", "planting", "generous")
