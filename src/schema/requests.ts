import { bool, type FieldMap, num, type ObjectSpec, ofType, str } from './fields.js';

/**
 * Request bodies of the action operations (docs/service.md: Payment, Person, Applicant
 * update, Org), and the response records our sandbox returns where the interface leaves the
 * shape open ("Response fields of Org, Person and Payment records: not shown").
 */

const personIdField = { PersonId: num('Person the nested record belongs to') } as const;

/** Adds `PersonId`, which the create variant of each nested Person array carries. */
function onCreate<const O extends ObjectSpec>(spec: O) {
  return { ...spec, fields: { ...spec.fields, ...personIdField } } as const;
}

export const PaymentCreate = {
  fields: {
    amountToPay: num('Amount due for the payment', { money: true }),
    InvoiceId: str('Invoice paid', { minLength: 1 }),
    PersonId: num('Person associated with the payment'),
  },
} as const satisfies ObjectSpec;

export const InfoItemRequest = {
  fields: {
    AttributeId: str(),
    ...ofType('string', ['choice', 'featureSetDescrip', 'featureSetName', 'valueDate', 'valueText']),
    ...ofType('number', ['FeatureSetId', 'InfoId', 'PersonId', 'valueFeatureId', 'valueNumber']),
  },
} as const satisfies ObjectSpec;

export const InfoRequest = {
  fields: {
    descrip: str(),
    ...ofType('number', ['isSubmitted', 'OrderItemId', 'PersonId', 'ProductId']),
  },
  arrays: { infoItem: InfoItemRequest },
} as const satisfies ObjectSpec;

export const ApplicantUpdate = {
  fields: {
    ...ofType('string', [
      'aliasNameFirst',
      'aliasNameLast',
      'applicationDate',
      'currentAddressYearStart',
      'georgia_race',
      'priorAddressCity',
      'priorAddressCounty',
      'priorAddressState',
      'priorAddressStreetPrimary',
      'priorAddressStreetSecondary',
      'priorAddressYearEnd',
      'priorAddressYearStart',
      'priorAddressZip',
    ]),
    ssn: str('Social Security number', { sensitive: true }),
  },
  arrays: { info: InfoRequest },
} as const satisfies ObjectSpec;

const Alias = {
  fields: { AliasTypeId: num(), nameFirst: str(), nameLast: str() },
} as const satisfies ObjectSpec;

const Author = {
  fields: {
    ...ofType('string', [
      'affiliation',
      'avatarUpload',
      'bio',
      'birthPlace',
      'jobTitle',
      'nationality',
      'o_gender',
      'o_nameFirst',
      'o_nameLast',
      'override',
      'slug',
      'telephone',
      'url',
      'worksFor',
    ]),
    o_dateOfBirth: str('Date of birth shown on the author page', { sensitive: true }),
    ContentId: num(),
    isActive: bool(),
  },
} as const satisfies ObjectSpec;

const StaffRequest = {
  fields: {
    CategoryId: num(),
    dateOfHire: str(),
    dateOfTermination: str(),
    jobTitle: str(),
    JobTitleId: num(),
    salary: num(),
    SalaryPeriodId: num('How often the salary is paid'),
  },
} as const satisfies ObjectSpec;

export const TagJoin = {
  fields: { parentEntity: str(), ParentId: num(), TagId: num() },
} as const satisfies ObjectSpec;

const UserOverride = {
  fields: {
    ...ofType('string', ['add', 'delete', 'edit', 'get']),
    blockDrop: bool(),
    EntityId: num(),
    UserId: num(),
  },
} as const satisfies ObjectSpec;

const userFields = {
  ...ofType('string', ['avatar', 'email', 'nameFirst', 'nameLast', 'nickname', 'phone']),
  RoleId: num('Role identifier'),
  ...ofType('boolean', [
    'getInvoiceEmail',
    'getMarketingEmail',
    'getMarketingText',
    'getOrderItemRegistrationEmail',
    'getOrderItemRegistrationText',
    'getOrderItemResultEmail',
    'getOrderItemResultText',
    'getOrderItemStatusEmail',
    'getOrderItemStatusText',
    'getOrgMonthRandomsEmail',
    'isSuspended',
  ]),
} as const satisfies FieldMap;

const UserUpdate = { fields: userFields, arrays: { UserOverride } } as const satisfies ObjectSpec;
const UserCreate = {
  fields: { ...userFields, isInvited: bool('Invited but not yet registered'), ...personIdField },
  arrays: { UserOverride },
} as const satisfies ObjectSpec;

const personFields = {
  nameFirst: str('First name'),
  nameLast: str('Last name'),
  zip: str('ZIP code'),
  CategoryId: num(),
  city: str(),
  dateOfBirth: str('Date of birth', { sensitive: true }),
  email: str(),
  gender: str(),
  lat: num(),
  lng: num(),
  nameMiddle: str(),
  phone: str(),
  phoneOffice: str(),
  phoneOfficeExt: str(),
  'Preferred~HsVendorId': num('Preferred vendor'),
  RandomPoolStatusId: num('Random pool status'),
  state: str(),
  streetPrimary: str(),
  streetSecondary: str(),
} as const satisfies FieldMap;

export const PersonUpdate = {
  fields: personFields,
  arrays: {
    alias: Alias,
    applicant: ApplicantUpdate,
    author: Author,
    staff: StaffRequest,
    tagJoin: TagJoin,
    user: UserUpdate,
  },
} as const satisfies ObjectSpec;

export const PersonCreate = {
  fields: {
    ...personFields,
    OrgId: num('Organization the person belongs to'),
    UserId: num('User account of the person'),
  },
  arrays: {
    alias: onCreate(Alias),
    applicant: onCreate(ApplicantUpdate),
    author: onCreate(Author),
    staff: onCreate(StaffRequest),
    tagJoin: TagJoin,
    user: UserCreate,
  },
} as const satisfies ObjectSpec;

const HsVendorRequest = {
  fields: {
    ...ofType('number', [
      'OrgId',
      'partnerA',
      'partnerB',
      'CityStateId',
      'fastPace',
      'HsSiteTypeId',
      'importDistance',
      'Int_Lat',
      'Int_lng',
      'lat',
      'lng',
    ]),
    ...ofType('string', [
      'about',
      'aboutDNA',
      'aboutDnaNsew',
      'aboutLandmark',
      'aboutLandmarkDNA',
      'aboutLandmarkOccHealth',
      'aboutNsew',
      'aboutOccHealth',
      'cityState',
      'customText',
      'descrip',
      'eBillingTier',
      'hsSiteType',
      'labApiDay',
      'labApiDayPrettier',
      'normalClose',
      'normalLunchEnd',
      'normalLunchStart',
      'normalOpen',
      'occHealthNetwork',
      'testTime',
      'xCode',
    ]),
    ...ofType('boolean', [
      'aboutDnaNeeded',
      'ban',
      'customTextOnly',
      'doesAudiogram',
      'doesBioMetric',
      'doesBloodAlcohol',
      'doesBloodHealth',
      'doesBodyHair',
      'doesChestXray',
      'doesDna',
      'doesDotBat',
      'doesDotPhysical',
      'doesECup',
      'doesEDot',
      'doesEkg',
      'doesHeadHair',
      'doesKrausWeber',
      'doesLiftTest',
      'doesNonBat',
      'doesNonDotPhysical',
      'doesObserved',
      'doesOralFluid',
      'doesOxfordTB',
      'doesPulmonary',
      'doesRadar',
      'doesRespQual',
      'doesRespQuant',
      'doesRespQuest',
      'doesSalivaAlcohol',
      'doesTbSkin',
      'doesTiter',
      'doesUrine',
      'doesVacHepA',
      'doesVacHepB',
      'doesVacMmr',
      'doesVacTdap',
      'doesVacVaricella',
      'doesVisionIshihara',
      'doesVisionJaeger',
      'doesVisionSnellen',
      'doesVisionTitmus',
      'doesXCup',
      'dotCertDoctor',
      'eCCFenabled',
      'eHealth',
      'eLabPartnerA',
      'eLabPartnerB',
      'ePhysical',
      'eReader',
      'freezeAddress',
      'freezeCity',
      'freezeDay',
      'freezeLabApiDays',
      'freezeName',
      'handicapAccess',
      'insideRetail',
      'installed',
      'isInNetworkHealth',
      'isLabApiDaysModified',
      'isNeedsManualDaysUpdate',
      'mobileDrug',
      'normalLunchClosed',
      'noWeb',
      'omega',
      'onSiteDrug',
      'open',
      'partnerC',
      'physicalsMdDo',
      'physicalsNpPa',
      'possibleClosed',
      'possibleDupe',
      'publicTransportation',
      'truckAccess',
      'walkinDrug',
      'walkinHealth',
      'workersComp',
    ]),
  },
} as const satisfies ObjectSpec;

const Location = {
  fields: {
    OrgId: num(),
    ...ofType('string', [
      'mondayOpen',
      'mondayClose',
      'mondayLunchStart',
      'mondayLunchEnd',
      'tuesdayOpen',
      'tuesdayClose',
      'tuesdayLunchStart',
      'tuesdayLunchEnd',
      'wednesdayOpen',
      'wednesdayClose',
      'wednesdayLunchStart',
      'wednesdayLunchEnd',
      'thursdayOpen',
      'thursdayClose',
      'thursdayLunchStart',
      'thursdayLunchEnd',
      'fridayOpen',
      'fridayClose',
      'fridayLunchStart',
      'fridayLunchEnd',
      'saturdayOpen',
      'saturdayClose',
      'saturdayLunchStart',
      'saturdayLunchEnd',
      'sundayOpen',
      'sundayClose',
      'sundayLunchStart',
      'sundayLunchEnd',
    ]),
    twentyFourHour: bool(),
    locationModDate: str(),
  },
} as const satisfies ObjectSpec;

const Vendor = { fields: { OrgId: num(), CategoryId: num() } } as const satisfies ObjectSpec;

export const OrgCreate = {
  fields: {
    name: str('Organization name', { minLength: 1 }),
    zip: str('ZIP code', { minLength: 1 }),
    CategoryId: num(),
    city: str(),
    cityState: str(),
    'Der~PersonId': num('Designated employer representative'),
    'dotPayment~PersonId': num('Person who pays DOT fees'),
    ein: str('Employer identification number'),
    email: str(),
    fax: str(),
    isHouse: bool('Organization operates from a residence'),
    lat: num(),
    lng: num(),
    LocationTypeId: num(),
    'Parent~OrgId': num('Parent organization'),
    phone: str(),
    phoneExt: str(),
    phoneOther: str(),
    phoneOtherExt: str(),
    'Preferred~HsVendorId': num('Preferred vendor'),
    rpDotRegistrationNumber: str('DOT registration number (blank: non-DOT)'),
    rpMinAlc: num('Minimum annual random alcohol rate, percent'),
    rpMinDrug: num('Minimum annual random drug rate, percent'),
    state: str(),
    streetPrimary: str(),
    streetSecondary: str(),
  },
  arrays: { hsVendor: HsVendorRequest, location: Location, tagJoin: TagJoin, vendor: Vendor },
} as const satisfies ObjectSpec;

/**
 * Response records of the creates. The interface does not show them; the sandbox answers with
 * the stored record: the request's fields plus `id` (and `id` on each nested record).
 */
export const Payment = {
  fields: {
    id: num('Unique identifier'),
    ...PaymentCreate.fields,
    balance: num('Invoice balance after the payment (sandbox reading)', { money: true }),
  },
} as const satisfies ObjectSpec;

export const Person = {
  fields: { id: num('Unique identifier'), ...PersonCreate.fields },
  arrays: PersonCreate.arrays,
} as const satisfies ObjectSpec;

export const Org = {
  fields: { id: num('Unique identifier'), ...OrgCreate.fields },
  arrays: OrgCreate.arrays,
} as const satisfies ObjectSpec;
