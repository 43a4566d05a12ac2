import type { Country } from '../domain/company-number.js'

/** Words the demo data set is made of, so that names, places and titles look real. */

export const PLACES: Record<Country, readonly string[]> = {
  BE: [
    'Antwerpen',
    'Gent',
    'Brussel',
    'Leuven',
    'Brugge',
    'Mechelen',
    'Hasselt',
    'Kortrijk',
    'Aalst',
    'Roeselare',
    'Liège',
    'Namur',
    'Charleroi',
    'Mons',
    'Wavre',
    'Genk',
    'Sint-Niklaas',
  ],
  NL: [
    'Amsterdam',
    'Rotterdam',
    'Utrecht',
    'Den Haag',
    'Eindhoven',
    'Groningen',
    'Tilburg',
    'Breda',
    'Nijmegen',
    'Zwolle',
    'Arnhem',
    'Haarlem',
    'Leiden',
    'Maastricht',
    'Delft',
    'Amersfoort',
  ],
  FR: [
    'Paris',
    'Lyon',
    'Marseille',
    'Toulouse',
    'Lille',
    'Bordeaux',
    'Nantes',
    'Strasbourg',
    'Rennes',
    'Montpellier',
    'Nice',
    'Grenoble',
    'Dijon',
    'Reims',
    'Angers',
    'Rouen',
  ],
}

export const FAMILY_NAMES: Record<Country, readonly string[]> = {
  BE: [
    'Peeters',
    'Janssens',
    'Maes',
    'Jacobs',
    'Mertens',
    'Willems',
    'Claes',
    'Goossens',
    'Wouters',
    'De Smet',
    'Dubois',
    'Lambert',
    'Dupont',
    'Martin',
    'Vermeulen',
    'Van den Bossche',
    'Desmet',
    'Lemaire',
    'Michiels',
    'Hermans',
  ],
  NL: [
    'de Jong',
    'Jansen',
    'de Vries',
    'van den Berg',
    'van Dijk',
    'Bakker',
    'Visser',
    'Smit',
    'Meijer',
    'de Boer',
    'Mulder',
    'de Groot',
    'Bos',
    'Vos',
    'Peters',
    'Hendriks',
    'van Leeuwen',
    'Dekker',
    'Brouwer',
    'de Wit',
  ],
  FR: [
    'Martin',
    'Bernard',
    'Thomas',
    'Petit',
    'Robert',
    'Richard',
    'Durand',
    'Dubois',
    'Moreau',
    'Laurent',
    'Simon',
    'Michel',
    'Lefèvre',
    'Leroy',
    'Roux',
    'David',
    'Bertrand',
    'Morel',
    'Fournier',
    'Girard',
  ],
}

export const FIRST_NAMES: Record<Country, readonly string[]> = {
  BE: [
    'Jan',
    'Sofie',
    'Pieter',
    'Lotte',
    'Wouter',
    'Elise',
    'Thomas',
    'Marie',
    'Bart',
    'Julie',
    'Luc',
    'Nathalie',
    'Koen',
    'Camille',
  ],
  NL: [
    'Daan',
    'Sanne',
    'Bram',
    'Anouk',
    'Joris',
    'Lieke',
    'Sem',
    'Fleur',
    'Ruben',
    'Iris',
    'Thijs',
    'Eva',
    'Lars',
    'Femke',
  ],
  FR: [
    'Jean',
    'Camille',
    'Nicolas',
    'Léa',
    'Julien',
    'Chloé',
    'Antoine',
    'Manon',
    'Pierre',
    'Inès',
    'Hugo',
    'Claire',
    'Louis',
    'Emma',
  ],
}

/** An activity: the words a company of that kind puts in its name, and how it earns money. */
export interface Sector {
  key: string
  words: Record<Country, readonly string[]>
  /** Revenue per employee, in the upstream's (unstated) currency unit. */
  revenuePerEmployee: number
  grossMargin: number
  ebitdaMargin: number
  /** Belgian joint committee (paritair comité) codes typical of the sector. */
  jointCommittees: readonly string[]
}

export const SECTORS: readonly Sector[] = [
  {
    key: 'logistics',
    words: {
      BE: ['Logistics', 'Transport', 'Expeditie'],
      NL: ['Logistiek', 'Transport', 'Distributie'],
      FR: ['Transports', 'Logistique'],
    },
    revenuePerEmployee: 210_000,
    grossMargin: 0.22,
    ebitdaMargin: 0.07,
    jointCommittees: ['140', '226'],
  },
  {
    key: 'software',
    words: {
      BE: ['Software', 'Digital', 'IT Solutions'],
      NL: ['Software', 'Digital', 'ICT'],
      FR: ['Informatique', 'Logiciels', 'Digital'],
    },
    revenuePerEmployee: 160_000,
    grossMargin: 0.78,
    ebitdaMargin: 0.16,
    jointCommittees: ['200'],
  },
  {
    key: 'construction',
    words: {
      BE: ['Bouw', 'Construct', 'Renovatie'],
      NL: ['Bouw', 'Aannemers', 'Installatietechniek'],
      FR: ['Construction', 'Bâtiment', 'Travaux'],
    },
    revenuePerEmployee: 180_000,
    grossMargin: 0.3,
    ebitdaMargin: 0.08,
    jointCommittees: ['124', '200'],
  },
  {
    key: 'food',
    words: {
      BE: ['Bakkerij', 'Brasserie', 'Food'],
      NL: ['Food', 'Bakkerij', 'Horeca'],
      FR: ['Boulangerie', 'Alimentation', 'Traiteur'],
    },
    revenuePerEmployee: 140_000,
    grossMargin: 0.35,
    ebitdaMargin: 0.09,
    jointCommittees: ['118', '302'],
  },
  {
    key: 'healthcare',
    words: {
      BE: ['Medical', 'Zorg', 'Pharma'],
      NL: ['Zorg', 'Medical', 'Health'],
      FR: ['Santé', 'Médical', 'Pharma'],
    },
    revenuePerEmployee: 190_000,
    grossMargin: 0.55,
    ebitdaMargin: 0.14,
    jointCommittees: ['330', '207'],
  },
  {
    key: 'manufacturing',
    words: {
      BE: ['Metaal', 'Industries', 'Engineering'],
      NL: ['Metaal', 'Machinebouw', 'Industrie'],
      FR: ['Industrie', 'Mécanique', 'Métallurgie'],
    },
    revenuePerEmployee: 250_000,
    grossMargin: 0.28,
    ebitdaMargin: 0.1,
    jointCommittees: ['111', '209'],
  },
  {
    key: 'consulting',
    words: {
      BE: ['Consulting', 'Advies', 'Partners'],
      NL: ['Advies', 'Consultancy', 'Partners'],
      FR: ['Conseil', 'Consulting', 'Associés'],
    },
    revenuePerEmployee: 150_000,
    grossMargin: 0.85,
    ebitdaMargin: 0.18,
    jointCommittees: ['200'],
  },
  {
    key: 'retail',
    words: {
      BE: ['Retail', 'Winkels', 'Shop'],
      NL: ['Retail', 'Winkels', 'Groothandel'],
      FR: ['Distribution', 'Commerce', 'Boutiques'],
    },
    revenuePerEmployee: 230_000,
    grossMargin: 0.3,
    ebitdaMargin: 0.05,
    jointCommittees: ['201', '311'],
  },
]

export const LEGAL_FORMS: Record<Country, readonly string[]> = {
  BE: ['BV', 'NV', 'SRL', 'SA', 'CommV'],
  NL: ['B.V.', 'N.V.', 'V.O.F.'],
  FR: ['SAS', 'SARL', 'SA', 'SASU'],
}

export const SENIORITIES = [
  'C_LEVEL',
  'VP',
  'DIRECTOR',
  'MANAGER',
  'SENIOR',
  'NON_MANAGEMENT',
] as const
export const DEPARTMENTS = [
  'GENERAL_MANAGEMENT',
  'FINANCE',
  'SOFTWARE_ENGINEERING',
  'PRODUCT_MANAGEMENT',
  'SALES',
  'MARKETING',
  'HUMAN_RESOURCES',
  'OPERATIONS',
  'LEGAL',
] as const
export const OFFICIAL_ROLES = [
  'FOUNDER',
  'COOWNER',
  'DIRECTOR',
  'MANAGING_DIRECTOR',
  'CHAIRMAN',
] as const

/** A position: its title in the three languages and where it sits. */
export interface Position {
  title: { EN: string; NL: string; FR: string }
  seniority: (typeof SENIORITIES)[number]
  department: (typeof DEPARTMENTS)[number]
}

export const POSITIONS: readonly Position[] = [
  {
    title: { EN: 'Chief Executive Officer', NL: 'Gedelegeerd bestuurder', FR: 'Directeur général' },
    seniority: 'C_LEVEL',
    department: 'GENERAL_MANAGEMENT',
  },
  {
    title: { EN: 'Chief Financial Officer', NL: 'Financieel directeur', FR: 'Directeur financier' },
    seniority: 'C_LEVEL',
    department: 'FINANCE',
  },
  {
    title: { EN: 'Chief Technology Officer', NL: 'Technisch directeur', FR: 'Directeur technique' },
    seniority: 'C_LEVEL',
    department: 'SOFTWARE_ENGINEERING',
  },
  {
    title: { EN: 'VP Engineering', NL: 'VP Engineering', FR: 'VP Ingénierie' },
    seniority: 'VP',
    department: 'SOFTWARE_ENGINEERING',
  },
  {
    title: { EN: 'VP Sales', NL: 'VP Verkoop', FR: 'VP Ventes' },
    seniority: 'VP',
    department: 'SALES',
  },
  {
    title: { EN: 'HR Director', NL: 'HR-directeur', FR: 'Directeur des ressources humaines' },
    seniority: 'DIRECTOR',
    department: 'HUMAN_RESOURCES',
  },
  {
    title: { EN: 'Marketing Director', NL: 'Marketingdirecteur', FR: 'Directeur marketing' },
    seniority: 'DIRECTOR',
    department: 'MARKETING',
  },
  {
    title: {
      EN: 'Operations Manager',
      NL: 'Operationeel manager',
      FR: 'Responsable des opérations',
    },
    seniority: 'MANAGER',
    department: 'OPERATIONS',
  },
  {
    title: { EN: 'Sales Manager', NL: 'Verkoopsmanager', FR: 'Responsable commercial' },
    seniority: 'MANAGER',
    department: 'SALES',
  },
  {
    title: { EN: 'Product Manager', NL: 'Productmanager', FR: 'Chef de produit' },
    seniority: 'MANAGER',
    department: 'PRODUCT_MANAGEMENT',
  },
  {
    title: {
      EN: 'Senior Software Engineer',
      NL: 'Senior softwareontwikkelaar',
      FR: 'Ingénieur logiciel senior',
    },
    seniority: 'SENIOR',
    department: 'SOFTWARE_ENGINEERING',
  },
  {
    title: { EN: 'Senior Accountant', NL: 'Senior boekhouder', FR: 'Comptable senior' },
    seniority: 'SENIOR',
    department: 'FINANCE',
  },
  {
    title: { EN: 'Software Engineer', NL: 'Softwareontwikkelaar', FR: 'Ingénieur logiciel' },
    seniority: 'NON_MANAGEMENT',
    department: 'SOFTWARE_ENGINEERING',
  },
  {
    title: { EN: 'Account Executive', NL: 'Accountmanager', FR: "Chargé d'affaires" },
    seniority: 'NON_MANAGEMENT',
    department: 'SALES',
  },
  {
    title: { EN: 'Marketing Specialist', NL: 'Marketingspecialist', FR: 'Chargé de marketing' },
    seniority: 'NON_MANAGEMENT',
    department: 'MARKETING',
  },
  {
    title: { EN: 'Legal Counsel', NL: 'Juridisch adviseur', FR: 'Juriste' },
    seniority: 'NON_MANAGEMENT',
    department: 'LEGAL',
  },
  {
    title: { EN: 'Office Manager', NL: 'Officemanager', FR: 'Responsable administratif' },
    seniority: 'MANAGER',
    department: 'OPERATIONS',
  },
]

export const LIST_COLUMNS = [
  'activities',
  'vatNumber',
  'country',
  'url',
  'socials',
  'description',
] as const
export const LIST_OWNERS = [
  'sofie.peeters@example.com',
  'daan.dejong@example.com',
  'camille.martin@example.com',
] as const
