"""Column words and record nouns in German, Spanish, Italian, Dutch and Portuguese.

Each entry is ``english: singular/plural``, written with the articles, which give the gender
(:func:`~benchsmith.programs.grammar.read_noun`): "das Land/die Länder", "l'isola/le isole",
"el área/las áreas". A noun said only in the singular (a quantity: "die Einwohnerzahl (in
Millionen)") has no plural. :data:`~benchsmith.programs.labels.LEXICON` reads these lists;
the English words are those of the French lexicon, so every language names the same columns.
Portuguese is Brazilian, as Babel's CLDR names are.
"""

from __future__ import annotations

ALIASES = {
    "capital city": "capital", "colour": "color", "tumour": "tumor", "runner up": "runner-up",
    "discovered": "year discovered", "release year": "released", "altitude": "elevation",
    "mpg": "miles per gallon", "flavanoids": "flavonoids", "kind": "type",
    "date of birth": "birth date", "date of death": "death date",
}  # fmt: skip
"""English words that name the same column as another (every language says them alike)."""

WORDS: dict[str, str] = {}

WORDS["de"] = """
capital: die Hauptstadt/die Hauptstädte; continent: der Kontinent/die Kontinente
region: die Region/die Regionen; country: das Land/die Länder
population: die Einwohnerzahl/die Einwohnerzahlen
population (millions): die Einwohnerzahl (in Millionen); area: die Fläche/die Flächen
currency: die Währung/die Währungen; currency code: der Währungscode/die Währungscodes
currency name: der Name der Währung; language: die Sprache/die Sprachen
name: der Name/die Namen; code: der Code/die Codes; symbol: das Symbol/die Symbole
category: die Kategorie/die Kategorien; group: die Gruppe/die Gruppen; type: der Typ/die Typen
species: die Art/die Arten; year: das Jahr/die Jahre; price: der Preis/die Preise
planet: der Planet/die Planeten; element: das Element/die Elemente; city: die Stadt/die Städte
state: der Bundesstaat/die Bundesstaaten; fruit: die Frucht/die Früchte
animal: das Tier/die Tiere; film: der Film/die Filme; book: das Buch/die Bücher
river: der Fluss/die Flüsse; mountain: der Berg/die Berge; gadget: das Gerät/die Geräte
length: die Länge/die Längen; length (km): die Länge (in km); height: die Höhe/die Höhen
mass: die Masse/die Massen; atomic mass: die Atommasse/die Atommassen
atomic number: die Ordnungszahl/die Ordnungszahlen; weight: das Gewicht/die Gewichte
color: die Farbe/die Farben; department: die Abteilung/die Abteilungen
role: die Funktion/die Funktionen; manager: der Vorgesetzte/die Vorgesetzten
director: der Regisseur/die Regisseure; author: der Autor/die Autoren
date: das Datum/die Daten; iso3: der ISO-Alpha-3-Code/die ISO-Alpha-3-Codes
museum: das Museum/die Museen; bridge: die Brücke/die Brücken; lake: der See/die Seen
island: die Insel/die Inseln; building: das Gebäude/die Gebäude
compound: die Verbindung/die Verbindungen; mission: die Mission/die Missionen
console: die Konsole/die Konsolen; event: der Wettbewerb/die Wettbewerbe
athlete: der Athlet/die Athleten; team: die Mannschaft/die Mannschaften
company: das Unternehmen/die Unternehmen; university: die Universität/die Universitäten
airport: der Flughafen/die Flughäfen; volcano: der Vulkan/die Vulkane
ocean: der Ozean/die Ozeane; sea: das Meer/die Meere; desert: die Wüste/die Wüsten
painting: das Gemälde/die Gemälde; painter: der Maler/die Maler
composer: der Komponist/die Komponisten; song: das Lied/die Lieder; album: das Album/die Alben
dish: das Gericht/die Gerichte; dog breed: die Hunderasse/die Hunderassen
breed: die Rasse/die Rassen; bird: der Vogel/die Vögel; penguin: der Pinguin/die Pinguine
tree: der Baum/die Bäume; plant: die Pflanze/die Pflanzen
vegetable: die Gemüsesorte/die Gemüsesorten; instrument: das Instrument/die Instrumente
sport: die Sportart/die Sportarten; game: das Spiel/die Spiele
programming language: die Programmiersprache/die Programmiersprachen
founded: das Gründungsjahr/die Gründungsjahre
first appeared: das Erscheinungsjahr/die Erscheinungsjahre
year discovered: das Entdeckungsjahr/die Entdeckungsjahre
released: das Erscheinungsjahr/die Erscheinungsjahre
published: das Erscheinungsjahr/die Erscheinungsjahre
completed: das Jahr der Fertigstellung/die Jahre der Fertigstellung
built: das Baujahr/die Baujahre; opened: das Eröffnungsjahr/die Eröffnungsjahre
size: die Größe/die Größen; age: das Alter; speed: die Geschwindigkeit/die Geschwindigkeiten
time: die Zeit/die Zeiten; depth: die Tiefe/die Tiefen; width: die Breite/die Breiten
elevation: die Höhe/die Höhen; capacity: die Kapazität/die Kapazitäten
distance: die Entfernung/die Entfernungen; temperature: die Temperatur/die Temperaturen
title: der Titel/die Titel; wind: der Wind/die Winde
precipitation: die Niederschlagsmenge/die Niederschlagsmengen
rainfall: die Regenmenge/die Regenmengen; humidity: die Luftfeuchtigkeit; weather: das Wetter
driver: der Fahrer/die Fahrer; season: die Saison/die Saisons; champion: der Meister/die Meister
winner: der Sieger/die Sieger; runner-up: der Zweitplatzierte/die Zweitplatzierten
loser: der Verlierer/die Verlierer; host: der Gastgeber/die Gastgeber
host country: das Gastgeberland/die Gastgeberländer
host city: die Gastgeberstadt/die Gastgeberstädte; sample: die Probe/die Proben
wine: der Wein/die Weine; record: der Rekord/die Rekorde; holder: der Inhaber/die Inhaber
constructor: der Rennstall/die Rennställe; win: der Sieg/die Siege; race: das Rennen/die Rennen
moon: der Mond/die Monde; goal: das Tor/die Tore; match: das Spiel/die Spiele
final: das Endspiel/die Endspiele; tournament: das Turnier/die Turniere
player: der Spieler/die Spieler; club: der Verein/die Vereine; coach: der Trainer/die Trainer
birth: die Geburt/die Geburten; death: der Tod
release: die Veröffentlichung/die Veröffentlichungen
publication: die Veröffentlichung/die Veröffentlichungen; launch: der Start/die Starts
foundation: die Gründung/die Gründungen; nationality: die Nationalität/die Nationalitäten
sex: das Geschlecht/die Geschlechter; gender: das Geschlecht/die Geschlechter
body: der Körper/die Körper; bill: der Schnabel/die Schnäbel; flipper: die Flosse/die Flossen
diagnosis: die Diagnose/die Diagnosen; radius: der Radius/die Radien
diameter: der Durchmesser/die Durchmesser; perimeter: der Umfang/die Umfänge
volume: das Volumen/die Volumina; density: die Dichte/die Dichten
texture: die Textur/die Texturen; concentration: die Konzentration/die Konzentrationen
acidity: der Säuregehalt; alcohol: der Alkoholgehalt; magnesium: der Magnesiumgehalt
intensity: die Intensität/die Intensitäten; hue: der Farbton/die Farbtöne
class: die Klasse/die Klassen; label: die Bezeichnung/die Bezeichnungen
variety: die Sorte/die Sorten; origin: die Herkunft; brand: die Marke/die Marken
model: das Modell/die Modelle; manufacturer: der Hersteller/die Hersteller
developer: der Entwickler/die Entwickler; publisher: der Verlag/die Verlage
genre: das Genre/die Genres; actor: der Schauspieler/die Schauspieler
singer: der Sänger/die Sänger; artist: der Künstler/die Künstler
writer: der Schriftsteller/die Schriftsteller; gdp: das BIP; income: das Einkommen/die Einkommen
salary: das Gehalt/die Gehälter; employee: der Mitarbeiter/die Mitarbeiter; duration: die Dauer
runtime: die Laufzeit/die Laufzeiten; score: die Punktzahl/die Punktzahlen
rank: der Rang/die Ränge; point: der Punkt/die Punkte; medal: die Medaille/die Medaillen
venue: der Austragungsort/die Austragungsorte; edition: die Ausgabe/die Ausgaben
month: der Monat/die Monate; day: der Tag/die Tage; century: das Jahrhundert/die Jahrhunderte
extension: die Endung/die Endungen; file: die Datei/die Dateien
paradigm: das Paradigma/die Paradigmen; creator: der Schöpfer/die Schöpfer
inventor: der Erfinder/die Erfinder; discoverer: der Entdecker/die Entdecker
agency: die Agentur/die Agenturen; crew: die Besatzung/die Besatzungen
rocket: die Rakete/die Raketen; spacecraft: das Raumfahrzeug/die Raumfahrzeuge
destination: das Ziel/die Ziele; orbit: die Umlaufbahn/die Umlaufbahnen
star: der Stern/die Sterne; galaxy: die Galaxie/die Galaxien
satellite: der Satellit/die Satelliten
confederation: der Kontinentalverband/die Kontinentalverbände
federation: der Verband/die Verbände; league: die Liga/die Ligen
stadium: das Stadion/die Stadien; peak: der Gipfel/die Gipfel
prominence: die Schartenhöhe/die Schartenhöhen; ascent: die Besteigung/die Besteigungen
climate: das Klima/die Klimata; family: die Familie/die Familien
order: die Ordnung/die Ordnungen; genus: die Gattung/die Gattungen
habitat: der Lebensraum/die Lebensräume; lifespan: die Lebensdauer
wingspan: die Flügelspannweite/die Flügelspannweiten; formula: die Formel/die Formeln
phase: der Aggregatzustand/die Aggregatzustände; collection: die Sammlung/die Sammlungen
novel: der Roman/die Romane; poem: das Gedicht/die Gedichte; band: die Band/die Bands
opera: die Oper/die Opern; premiere: die Uraufführung/die Uraufführungen
tower: der Turm/die Türme; span: die Spannweite/die Spannweiten
architect: der Architekt/die Architekten; floor: das Stockwerk/die Stockwerke
platform: die Plattform/die Plattformen; founder: der Gründer/die Gründer
headquarters: der Hauptsitz/die Hauptsitze; industry: die Branche/die Branchen
nation: die Nation/die Nationen; person: die Person/die Personen
student: der Schüler/die Schüler; school: die Schule/die Schulen
hospital: das Krankenhaus/die Krankenhäuser; patient: der Patient/die Patienten
tumor: der Tumor/die Tumoren; cell: die Zelle/die Zellen
measurement: die Messung/die Messungen; unit: die Einheit/die Einheiten
value: der Wert/die Werte; number: die Nummer/die Nummern; id: die Kennung/die Kennungen
thickness: die Dicke/die Dicken; energy: die Energie/die Energien
power: die Leistung/die Leistungen; voltage: die Spannung/die Spannungen
frequency: die Frequenz/die Frequenzen; pressure: der Druck/die Drücke
salt: das Salz/die Salze; water: das Wasser; acid: die Säure/die Säuren
malic acid: die Äpfelsäure; citric acid: die Zitronensäure; flavonoids: der Flavonoidgehalt
range: das Gebirge/die Gebirge; proline: das Prolin; sugar: der Zucker
protein: das Protein/die Proteine; car: das Auto/die Autos
vehicle: das Fahrzeug/die Fahrzeuge; engine: der Motor/die Motoren
fuel: der Kraftstoff/die Kraftstoffe; cylinder: der Zylinder/die Zylinder
displacement: der Hubraum/die Hubräume; horsepower: die Leistung (PS)
acceleration: die Beschleunigung/die Beschleunigungen
miles per gallon: der Verbrauch (Meilen pro Gallone)
boiling point: der Siedepunkt/die Siedepunkte; melting point: der Schmelzpunkt/die Schmelzpunkte
birth date: das Geburtsdatum/die Geburtsdaten; death date: das Sterbedatum/die Sterbedaten
birth year: das Geburtsjahr/die Geburtsjahre; death year: das Todesjahr/die Todesjahre
release date: das Erscheinungsdatum; launch date: das Startdatum
file extension: die Dateiendung/die Dateiendungen; body mass: die Körpermasse
bill length: die Schnabellänge; bill depth: die Schnabelhöhe; flipper length: die Flossenlänge
population density: die Bevölkerungsdichte; life expectancy: die Lebenserwartung
wind speed: die Windgeschwindigkeit/die Windgeschwindigkeiten
"""

WORDS["es"] = """
capital: la capital/las capitales; continent: el continente/los continentes
region: la región/las regiones; country: el país/los países
population: la población/las poblaciones; population (millions): la población (en millones)
area: la superficie/las superficies; currency: la moneda/las monedas
currency code: el código de la moneda/los códigos de la moneda
currency name: el nombre de la moneda/los nombres de la moneda
language: el idioma/los idiomas; name: el nombre/los nombres; code: el código/los códigos
symbol: el símbolo/los símbolos; category: la categoría/las categorías
group: el grupo/los grupos; type: el tipo/los tipos; species: la especie/las especies
year: el año/los años; price: el precio/los precios; planet: el planeta/los planetas
element: el elemento/los elementos; city: la ciudad/las ciudades; state: el estado/los estados
fruit: la fruta/las frutas; animal: el animal/los animales; film: la película/las películas
book: el libro/los libros; river: el río/los ríos; mountain: la montaña/las montañas
gadget: el aparato/los aparatos; length: la longitud/las longitudes
length (km): la longitud (en km); height: la altura/las alturas; mass: la masa/las masas
atomic mass: la masa atómica/las masas atómicas
atomic number: el número atómico/los números atómicos; weight: el peso/los pesos
color: el color/los colores; department: el departamento/los departamentos
role: el puesto/los puestos; manager: el jefe/los jefes; director: el director/los directores
author: el autor/los autores; date: la fecha/las fechas
iso3: el código ISO de tres letras/los códigos ISO de tres letras
museum: el museo/los museos; bridge: el puente/los puentes; lake: el lago/los lagos
island: la isla/las islas; building: el edificio/los edificios
compound: el compuesto/los compuestos; mission: la misión/las misiones
console: la consola/las consolas; event: la prueba/las pruebas; athlete: el atleta/los atletas
team: el equipo/los equipos; company: la empresa/las empresas
university: la universidad/las universidades; airport: el aeropuerto/los aeropuertos
volcano: el volcán/los volcanes; ocean: el océano/los océanos; sea: el mar/los mares
desert: el desierto/los desiertos; painting: el cuadro/los cuadros
painter: el pintor/los pintores; composer: el compositor/los compositores
song: la canción/las canciones; album: el álbum/los álbumes; dish: el plato/los platos
dog breed: la raza de perro/las razas de perro; breed: la raza/las razas
bird: el ave/las aves; penguin: el pingüino/los pingüinos; tree: el árbol/los árboles
plant: la planta/las plantas; vegetable: la verdura/las verduras
instrument: el instrumento/los instrumentos; sport: el deporte/los deportes
game: el juego/los juegos
programming language: el lenguaje de programación/los lenguajes de programación
founded: el año de fundación/los años de fundación
first appeared: el año de aparición/los años de aparición
year discovered: el año de descubrimiento/los años de descubrimiento
released: el año de lanzamiento/los años de lanzamiento
published: el año de publicación/los años de publicación
completed: el año de finalización/los años de finalización
built: el año de construcción/los años de construcción
opened: el año de inauguración/los años de inauguración
size: el tamaño/los tamaños; age: la edad/las edades; speed: la velocidad/las velocidades
time: el tiempo/los tiempos; depth: la profundidad/las profundidades
width: la anchura/las anchuras; elevation: la altitud/las altitudes
capacity: la capacidad/las capacidades; distance: la distancia/las distancias
temperature: la temperatura/las temperaturas; title: el título/los títulos
wind: el viento/los vientos; precipitation: la precipitación/las precipitaciones
rainfall: la precipitación/las precipitaciones; humidity: la humedad/las humedades
weather: el tiempo/los tiempos; driver: el piloto/los pilotos
season: la temporada/las temporadas; champion: el campeón/los campeones
winner: el ganador/los ganadores; runner-up: el subcampeón/los subcampeones
loser: el perdedor/los perdedores; host: el anfitrión/los anfitriones
host country: el país anfitrión/los países anfitriones
host city: la ciudad sede/las ciudades sede; sample: la muestra/las muestras
wine: el vino/los vinos; record: el récord/los récords; holder: el poseedor/los poseedores
constructor: la escudería/las escuderías; win: la victoria/las victorias
race: la carrera/las carreras; moon: la luna/las lunas; goal: el gol/los goles
match: el partido/los partidos; final: la final/las finales; tournament: el torneo/los torneos
player: el jugador/los jugadores; club: el club/los clubes
coach: el entrenador/los entrenadores; birth: el nacimiento/los nacimientos
death: el fallecimiento/los fallecimientos; release: el lanzamiento/los lanzamientos
publication: la publicación/las publicaciones; launch: el lanzamiento/los lanzamientos
foundation: la fundación/las fundaciones; nationality: la nacionalidad/las nacionalidades
sex: el sexo/los sexos; gender: el género/los géneros; body: el cuerpo/los cuerpos
bill: el pico/los picos; flipper: la aleta/las aletas
diagnosis: el diagnóstico/los diagnósticos; radius: el radio/los radios
diameter: el diámetro/los diámetros; perimeter: el perímetro/los perímetros
volume: el volumen/los volúmenes; density: la densidad/las densidades
texture: la textura/las texturas; concentration: la concentración/las concentraciones
acidity: la acidez/las acideces; alcohol: el grado alcohólico/los grados alcohólicos
magnesium: el magnesio; intensity: la intensidad/las intensidades
hue: el matiz/los matices; class: la clase/las clases; label: la etiqueta/las etiquetas
variety: la variedad/las variedades; origin: el origen/los orígenes; brand: la marca/las marcas
model: el modelo/los modelos; manufacturer: el fabricante/los fabricantes
developer: el desarrollador/los desarrolladores; publisher: la editorial/las editoriales
genre: el género/los géneros; actor: el actor/los actores; singer: el cantante/los cantantes
artist: el artista/los artistas; writer: el escritor/los escritores; gdp: el PIB
income: el ingreso/los ingresos; salary: el salario/los salarios; cost: el costo/los costos
employee: el empleado/los empleados; duration: la duración/las duraciones
runtime: la duración/las duraciones; score: la puntuación/las puntuaciones
rank: la posición/las posiciones; point: el punto/los puntos; medal: la medalla/las medallas
venue: la sede/las sedes; edition: la edición/las ediciones; month: el mes/los meses
day: el día/los días; century: el siglo/los siglos; extension: la extensión/las extensiones
file: el archivo/los archivos; paradigm: el paradigma/los paradigmas
creator: el creador/los creadores; inventor: el inventor/los inventores
discoverer: el descubridor/los descubridores; agency: la agencia/las agencias
crew: la tripulación/las tripulaciones; rocket: el cohete/los cohetes
spacecraft: la nave espacial/las naves espaciales; destination: el destino/los destinos
orbit: la órbita/las órbitas; star: la estrella/las estrellas; galaxy: la galaxia/las galaxias
satellite: el satélite/los satélites; confederation: la confederación/las confederaciones
federation: la federación/las federaciones; league: la liga/las ligas
stadium: el estadio/los estadios; peak: la cumbre/las cumbres
prominence: la prominencia/las prominencias; ascent: el ascenso/los ascensos
climate: el clima/los climas; family: la familia/las familias; order: el orden/los órdenes
genus: el género/los géneros; habitat: el hábitat/los hábitats
lifespan: la esperanza de vida/las esperanzas de vida
wingspan: la envergadura/las envergaduras; formula: la fórmula/las fórmulas
boiling: la ebullición; melting: la fusión; phase: la fase/las fases
collection: la colección/las colecciones; novel: la novela/las novelas
poem: el poema/los poemas; band: la banda/las bandas; opera: la ópera/las óperas
premiere: el estreno/los estrenos; tower: la torre/las torres; span: el vano/los vanos
architect: el arquitecto/los arquitectos; floor: el piso/los pisos
platform: la plataforma/las plataformas; founder: el fundador/los fundadores
headquarters: la sede/las sedes; industry: el sector/los sectores
nation: la nación/las naciones; person: la persona/las personas
student: el alumno/los alumnos; school: la escuela/las escuelas
hospital: el hospital/los hospitales; patient: el paciente/los pacientes
tumor: el tumor/los tumores; cell: la célula/las células
measurement: la medición/las mediciones; unit: la unidad/las unidades
value: el valor/los valores; number: el número/los números
id: el identificador/los identificadores; thickness: el grosor/los grosores
energy: la energía/las energías; power: la potencia/las potencias
voltage: la tensión/las tensiones; frequency: la frecuencia/las frecuencias
pressure: la presión/las presiones; salt: la sal/las sales; water: el agua/las aguas
acid: el ácido/los ácidos; malic acid: el ácido málico; citric acid: el ácido cítrico
flavonoids: el contenido de flavonoides; range: la cordillera/las cordilleras
proline: la prolina; sugar: el azúcar/los azúcares; protein: la proteína/las proteínas
car: el automóvil/los automóviles; vehicle: el vehículo/los vehículos
engine: el motor/los motores; fuel: el combustible/los combustibles
cylinder: el cilindro/los cilindros; displacement: la cilindrada/las cilindradas
horsepower: la potencia (CV); acceleration: la aceleración/las aceleraciones
miles per gallon: el consumo (millas por galón); body mass: la masa corporal
bill length: la longitud del pico; bill depth: la profundidad del pico
flipper length: la longitud de la aleta
wind speed: la velocidad del viento/las velocidades del viento
"""

WORDS["it"] = """
capital: la capitale/le capitali; continent: il continente/i continenti
region: la regione/le regioni; country: il paese/i paesi
population: la popolazione/le popolazioni; population (millions): la popolazione (in milioni)
area: la superficie/le superfici; currency: la valuta/le valute
currency code: il codice della valuta/i codici della valuta
currency name: il nome della valuta/i nomi della valuta; language: la lingua/le lingue
name: il nome/i nomi; code: il codice/i codici; symbol: il simbolo/i simboli
category: la categoria/le categorie; group: il gruppo/i gruppi; type: il tipo/i tipi
species: la specie/le specie; year: l'anno/gli anni; price: il prezzo/i prezzi
planet: il pianeta/i pianeti; element: l'elemento/gli elementi; city: la città/le città
state: lo stato/gli stati; fruit: il frutto/i frutti; animal: l'animale/gli animali
film: il film/i film; book: il libro/i libri; river: il fiume/i fiumi
mountain: la montagna/le montagne; gadget: il gadget/i gadget
length: la lunghezza/le lunghezze; length (km): la lunghezza (in km)
height: l'altezza/le altezze; mass: la massa/le masse
atomic mass: la massa atomica/le masse atomiche
atomic number: il numero atomico/i numeri atomici; weight: il peso/i pesi
color: il colore/i colori; department: il reparto/i reparti; role: il ruolo/i ruoli
manager: il responsabile/i responsabili; director: il regista/i registi
author: l'autore/gli autori; date: la data/le date
iso3: il codice ISO a tre lettere/i codici ISO a tre lettere; museum: il museo/i musei
bridge: il ponte/i ponti; lake: il lago/i laghi; island: l'isola/le isole
building: l'edificio/gli edifici; compound: il composto/i composti
mission: la missione/le missioni; console: la console/le console; event: la gara/le gare
athlete: l'atleta/gli atleti; team: la squadra/le squadre; company: l'azienda/le aziende
university: l'università/le università; airport: l'aeroporto/gli aeroporti
volcano: il vulcano/i vulcani; ocean: l'oceano/gli oceani; sea: il mare/i mari
desert: il deserto/i deserti; painting: il dipinto/i dipinti; painter: il pittore/i pittori
composer: il compositore/i compositori; song: la canzone/le canzoni
album: l'album/gli album; dish: il piatto/i piatti
dog breed: la razza canina/le razze canine; breed: la razza/le razze
bird: l'uccello/gli uccelli; penguin: il pinguino/i pinguini; tree: l'albero/gli alberi
plant: la pianta/le piante; vegetable: l'ortaggio/gli ortaggi
instrument: lo strumento/gli strumenti; sport: lo sport/gli sport; game: il gioco/i giochi
programming language: il linguaggio di programmazione/i linguaggi di programmazione
founded: l'anno di fondazione/gli anni di fondazione
first appeared: l'anno di comparsa/gli anni di comparsa
year discovered: l'anno di scoperta/gli anni di scoperta
released: l'anno di uscita/gli anni di uscita
published: l'anno di pubblicazione/gli anni di pubblicazione
completed: l'anno di completamento/gli anni di completamento
built: l'anno di costruzione/gli anni di costruzione
opened: l'anno di apertura/gli anni di apertura
size: la dimensione/le dimensioni; age: l'età/le età; speed: la velocità/le velocità
time: il tempo/i tempi; depth: la profondità/le profondità
width: la larghezza/le larghezze; elevation: l'altitudine/le altitudini
capacity: la capacità/le capacità; distance: la distanza/le distanze
temperature: la temperatura/le temperature; title: il titolo/i titoli; wind: il vento/i venti
precipitation: la precipitazione/le precipitazioni; rainfall: la piovosità/le piovosità
humidity: l'umidità/le umidità; weather: il meteo/i meteo; driver: il pilota/i piloti
season: la stagione/le stagioni; champion: il campione/i campioni
winner: il vincitore/i vincitori; runner-up: il secondo classificato/i secondi classificati
loser: lo sconfitto/gli sconfitti; host: l'organizzatore/gli organizzatori
host country: il paese ospitante/i paesi ospitanti
host city: la città ospitante/le città ospitanti; sample: il campione/i campioni
wine: il vino/i vini; record: il record/i record; holder: il detentore/i detentori
constructor: la scuderia/le scuderie; win: la vittoria/le vittorie; race: la gara/le gare
moon: la luna/le lune; goal: il gol/i gol; match: la partita/le partite
final: la finale/le finali; tournament: il torneo/i tornei; player: il giocatore/i giocatori
club: il club/i club; coach: l'allenatore/gli allenatori; birth: la nascita/le nascite
death: la morte/le morti; release: l'uscita/le uscite
publication: la pubblicazione/le pubblicazioni; launch: il lancio/i lanci
foundation: la fondazione/le fondazioni; nationality: la nazionalità/le nazionalità
sex: il sesso/i sessi; gender: il genere/i generi; body: il corpo/i corpi
bill: il becco/i becchi; flipper: la pinna/le pinne; diagnosis: la diagnosi/le diagnosi
radius: il raggio/i raggi; diameter: il diametro/i diametri
perimeter: il perimetro/i perimetri; volume: il volume/i volumi
density: la densità/le densità; texture: la tessitura/le tessiture
concentration: la concentrazione/le concentrazioni; acidity: l'acidità/le acidità
alcohol: il grado alcolico/i gradi alcolici; magnesium: il magnesio
intensity: l'intensità/le intensità; hue: la tonalità/le tonalità; class: la classe/le classi
label: l'etichetta/le etichette; variety: la varietà/le varietà
origin: l'origine/le origini; brand: la marca/le marche; model: il modello/i modelli
manufacturer: il produttore/i produttori; developer: lo sviluppatore/gli sviluppatori
publisher: l'editore/gli editori; genre: il genere/i generi; actor: l'attore/gli attori
singer: il cantante/i cantanti; artist: l'artista/gli artisti
writer: lo scrittore/gli scrittori; gdp: il PIL; income: il reddito/i redditi
salary: lo stipendio/gli stipendi; cost: il costo/i costi
employee: il dipendente/i dipendenti; duration: la durata/le durate
runtime: la durata/le durate; score: il punteggio/i punteggi
rank: la posizione/le posizioni; point: il punto/i punti; medal: la medaglia/le medaglie
venue: la sede/le sedi; edition: l'edizione/le edizioni; month: il mese/i mesi
day: il giorno/i giorni; century: il secolo/i secoli; extension: l'estensione/le estensioni
file: il file/i file; paradigm: il paradigma/i paradigmi; creator: il creatore/i creatori
inventor: l'inventore/gli inventori; discoverer: lo scopritore/gli scopritori
agency: l'agenzia/le agenzie; crew: l'equipaggio/gli equipaggi; rocket: il razzo/i razzi
spacecraft: il veicolo spaziale/i veicoli spaziali
destination: la destinazione/le destinazioni; orbit: l'orbita/le orbite
star: la stella/le stelle; galaxy: la galassia/le galassie; satellite: il satellite/i satelliti
confederation: la confederazione/le confederazioni
federation: la federazione/le federazioni; league: la lega/le leghe
stadium: lo stadio/gli stadi; peak: la vetta/le vette
prominence: la prominenza/le prominenze; ascent: l'ascensione/le ascensioni
climate: il clima/i climi; family: la famiglia/le famiglie; order: l'ordine/gli ordini
genus: il genere/i generi; habitat: l'habitat/gli habitat
lifespan: la longevità/le longevità; wingspan: l'apertura alare/le aperture alari
formula: la formula/le formule; boiling: l'ebollizione/le ebollizioni
melting: la fusione/le fusioni; phase: la fase/le fasi
collection: la collezione/le collezioni; novel: il romanzo/i romanzi
poem: la poesia/le poesie; band: la band/le band; opera: l'opera/le opere
premiere: la prima rappresentazione/le prime rappresentazioni; tower: la torre/le torri
span: la campata/le campate; architect: l'architetto/gli architetti
floor: il piano/i piani; platform: la piattaforma/le piattaforme
founder: il fondatore/i fondatori; headquarters: la sede/le sedi
industry: il settore/i settori; nation: la nazione/le nazioni
person: la persona/le persone; student: lo studente/gli studenti
school: la scuola/le scuole; hospital: l'ospedale/gli ospedali
patient: il paziente/i pazienti; tumor: il tumore/i tumori; cell: la cellula/le cellule
measurement: la misura/le misure; unit: l'unità/le unità; value: il valore/i valori
number: il numero/i numeri; id: l'identificativo/gli identificativi
thickness: lo spessore/gli spessori; energy: l'energia/le energie
power: la potenza/le potenze; voltage: la tensione/le tensioni
frequency: la frequenza/le frequenze; pressure: la pressione/le pressioni
salt: il sale/i sali; water: l'acqua/le acque; acid: l'acido/gli acidi
malic acid: l'acido malico/gli acidi malici; citric acid: l'acido citrico/gli acidi citrici
flavonoids: il contenuto di flavonoidi; range: la catena montuosa/le catene montuose
proline: la prolina; sugar: lo zucchero/gli zuccheri; protein: la proteina/le proteine
car: l'auto/le auto; vehicle: il veicolo/i veicoli; engine: il motore/i motori
fuel: il carburante/i carburanti; cylinder: il cilindro/i cilindri
displacement: la cilindrata/le cilindrate; horsepower: la potenza (CV)
acceleration: l'accelerazione/le accelerazioni
miles per gallon: il consumo (miglia per gallone); body mass: la massa corporea
bill length: la lunghezza del becco; bill depth: la profondità del becco
flipper length: la lunghezza della pinna
wind speed: la velocità del vento/le velocità del vento
"""

WORDS["nl"] = """
capital: de hoofdstad/de hoofdsteden; continent: het continent/de continenten
region: de regio/de regio's; country: het land/de landen
population: het inwonertal/de inwonertallen; population (millions): het inwonertal (in miljoenen)
area: de oppervlakte/de oppervlakten; currency: de munteenheid/de munteenheden
currency code: de code van de munteenheid/de codes van de munteenheid
currency name: de naam van de munteenheid; language: de taal/de talen
name: de naam/de namen; code: de code/de codes; symbol: het symbool/de symbolen
category: de categorie/de categorieën; group: de groep/de groepen; type: het type/de types
species: de soort/de soorten; year: het jaar/de jaren; price: de prijs/de prijzen
planet: de planeet/de planeten; element: het element/de elementen; city: de stad/de steden
state: de staat/de staten; fruit: de vrucht/de vruchten; animal: het dier/de dieren
film: de film/de films; book: het boek/de boeken; river: de rivier/de rivieren
mountain: de berg/de bergen; gadget: de gadget/de gadgets; length: de lengte/de lengten
length (km): de lengte (in km); height: de hoogte/de hoogten; mass: de massa/de massa's
atomic mass: de atoommassa/de atoommassa's; atomic number: het atoomnummer/de atoomnummers
weight: het gewicht/de gewichten; color: de kleur/de kleuren
department: de afdeling/de afdelingen; role: de functie/de functies
manager: de leidinggevende/de leidinggevenden; director: de regisseur/de regisseurs
author: de auteur/de auteurs; date: de datum/de data
iso3: de drieletterige ISO-code/de drieletterige ISO-codes; museum: het museum/de musea
bridge: de brug/de bruggen; lake: het meer/de meren; island: het eiland/de eilanden
building: het gebouw/de gebouwen; compound: de verbinding/de verbindingen
mission: de missie/de missies; console: de console/de consoles
event: het onderdeel/de onderdelen; athlete: de atleet/de atleten; team: het team/de teams
company: het bedrijf/de bedrijven; university: de universiteit/de universiteiten
airport: de luchthaven/de luchthavens; volcano: de vulkaan/de vulkanen
ocean: de oceaan/de oceanen; sea: de zee/de zeeën; desert: de woestijn/de woestijnen
painting: het schilderij/de schilderijen; painter: de schilder/de schilders
composer: de componist/de componisten; song: het lied/de liederen
album: het album/de albums; dish: het gerecht/de gerechten
dog breed: het hondenras/de hondenrassen; breed: het ras/de rassen
bird: de vogel/de vogels; penguin: de pinguïn/de pinguïns; tree: de boom/de bomen
plant: de plant/de planten; vegetable: de groente/de groenten
instrument: het instrument/de instrumenten; sport: de sport/de sporten
game: het spel/de spellen; programming language: de programmeertaal/de programmeertalen
founded: het oprichtingsjaar/de oprichtingsjaren
first appeared: het jaar van verschijnen/de jaren van verschijnen
year discovered: het jaar van ontdekking/de jaren van ontdekking
released: het jaar van uitgave/de jaren van uitgave
published: het jaar van publicatie/de jaren van publicatie
completed: het jaar van voltooiing/de jaren van voltooiing
built: het bouwjaar/de bouwjaren; opened: het jaar van opening/de jaren van opening
size: de grootte/de groottes; age: de leeftijd/de leeftijden
speed: de snelheid/de snelheden; time: de tijd/de tijden; depth: de diepte/de diepten
width: de breedte/de breedten; elevation: de hoogte/de hoogten
capacity: de capaciteit/de capaciteiten; distance: de afstand/de afstanden
temperature: de temperatuur/de temperaturen; title: de titel/de titels
wind: de wind/de winden; precipitation: de neerslag; rainfall: de regenval
humidity: de luchtvochtigheid; weather: het weer; driver: de coureur/de coureurs
season: het seizoen/de seizoenen; champion: de kampioen/de kampioenen
winner: de winnaar/de winnaars
runner-up: de verliezende finalist/de verliezende finalisten
loser: de verliezer/de verliezers; host: de gastheer/de gastheren
host country: het gastland/de gastlanden; host city: de gaststad/de gaststeden
sample: het monster/de monsters; wine: de wijn/de wijnen; record: het record/de records
holder: de houder/de houders; constructor: de renstal/de renstallen
win: de overwinning/de overwinningen; race: de race/de races; moon: de maan/de manen
goal: het doelpunt/de doelpunten; match: de wedstrijd/de wedstrijden
final: de finale/de finales; tournament: het toernooi/de toernooien
player: de speler/de spelers; club: de club/de clubs; coach: de trainer/de trainers
birth: de geboorte/de geboorten; death: het overlijden; release: de uitgave/de uitgaven
publication: de publicatie/de publicaties; launch: de lancering/de lanceringen
foundation: de oprichting/de oprichtingen; nationality: de nationaliteit/de nationaliteiten
sex: het geslacht/de geslachten; gender: het geslacht/de geslachten
body: het lichaam/de lichamen; bill: de snavel/de snavels; flipper: de vin/de vinnen
diagnosis: de diagnose/de diagnoses; radius: de straal/de stralen
diameter: de diameter/de diameters; perimeter: de omtrek/de omtrekken
volume: het volume/de volumes; density: de dichtheid/de dichtheden
texture: de textuur/de texturen; concentration: de concentratie/de concentraties
acidity: de zuurgraad; alcohol: het alcoholgehalte; magnesium: het magnesiumgehalte
intensity: de intensiteit/de intensiteiten; hue: de tint/de tinten
class: de klasse/de klassen; label: het label/de labels
variety: de variëteit/de variëteiten; origin: de herkomst; brand: het merk/de merken
model: het model/de modellen; manufacturer: de fabrikant/de fabrikanten
developer: de ontwikkelaar/de ontwikkelaars; publisher: de uitgever/de uitgevers
genre: het genre/de genres; actor: de acteur/de acteurs; singer: de zanger/de zangers
artist: de kunstenaar/de kunstenaars; writer: de schrijver/de schrijvers; gdp: het bbp
income: het inkomen/de inkomens; salary: het salaris/de salarissen
cost: de kostprijs/de kostprijzen; employee: de werknemer/de werknemers
duration: de duur; runtime: de speelduur; score: de score/de scores
rank: de positie/de posities; point: het punt/de punten; medal: de medaille/de medailles
venue: de locatie/de locaties; edition: de editie/de edities; month: de maand/de maanden
day: de dag/de dagen; century: de eeuw/de eeuwen; extension: de extensie/de extensies
file: het bestand/de bestanden; paradigm: het paradigma/de paradigma's
creator: de maker/de makers; inventor: de uitvinder/de uitvinders
discoverer: de ontdekker/de ontdekkers; agency: het agentschap/de agentschappen
crew: de bemanning/de bemanningen; rocket: de raket/de raketten
spacecraft: het ruimtevaartuig/de ruimtevaartuigen
destination: de bestemming/de bestemmingen; orbit: de baan/de banen
star: de ster/de sterren; galaxy: het sterrenstelsel/de sterrenstelsels
satellite: de satelliet/de satellieten; confederation: de confederatie/de confederaties
federation: de federatie/de federaties; league: de competitie/de competities
stadium: het stadion/de stadions; peak: de top/de toppen; prominence: de prominentie
ascent: de beklimming/de beklimmingen; climate: het klimaat/de klimaten
family: de familie/de families; order: de orde/de ordes; genus: het geslacht/de geslachten
habitat: het leefgebied/de leefgebieden; lifespan: de levensduur
wingspan: de spanwijdte/de spanwijdten; formula: de formule/de formules
phase: de fase/de fasen; collection: de collectie/de collecties
novel: de roman/de romans; poem: het gedicht/de gedichten; band: de band/de bands
opera: de opera/de opera's; premiere: de première/de premières
tower: de toren/de torens; span: de overspanning/de overspanningen
architect: de architect/de architecten; floor: de verdieping/de verdiepingen
platform: het platform/de platforms; founder: de oprichter/de oprichters
headquarters: het hoofdkantoor/de hoofdkantoren; industry: de sector/de sectoren
nation: de natie/de naties; person: de persoon/de personen
student: de leerling/de leerlingen; school: de school/de scholen
hospital: het ziekenhuis/de ziekenhuizen; patient: de patiënt/de patiënten
tumor: de tumor/de tumoren; cell: de cel/de cellen; measurement: de meting/de metingen
unit: de eenheid/de eenheden; value: de waarde/de waarden; number: het nummer/de nummers
id: de identificatiecode/de identificatiecodes; thickness: de dikte/de diktes
energy: de energie; power: het vermogen/de vermogens; voltage: de spanning/de spanningen
frequency: de frequentie/de frequenties; pressure: de druk; salt: het zout/de zouten
water: het water; acid: het zuur/de zuren; malic acid: het appelzuur
citric acid: het citroenzuur; flavonoids: het flavonoïdengehalte
range: het gebergte/de gebergten; proline: het prolinegehalte; sugar: de suiker/de suikers
protein: het eiwit/de eiwitten; car: de auto/de auto's; vehicle: het voertuig/de voertuigen
engine: de motor/de motoren; fuel: de brandstof/de brandstoffen
cylinder: de cilinder/de cilinders; displacement: de cilinderinhoud
horsepower: het vermogen (pk); acceleration: de acceleratie/de acceleraties
miles per gallon: het verbruik (mijl per gallon)
boiling point: het kookpunt/de kookpunten; melting point: het smeltpunt/de smeltpunten
birth date: de geboortedatum/de geboortedata; death date: de sterfdatum/de sterfdata
birth year: het geboortejaar/de geboortejaren; death year: het sterfjaar/de sterfjaren
release date: de releasedatum; launch date: de lanceerdatum
file extension: de bestandsextensie/de bestandsextensies; body mass: de lichaamsmassa
bill length: de snavellengte; bill depth: de snaveldiepte; flipper length: de vinlengte
population density: de bevolkingsdichtheid; life expectancy: de levensverwachting
wind speed: de windsnelheid/de windsnelheden
"""

WORDS["pt"] = """
capital: a capital/as capitais; continent: o continente/os continentes
region: a região/as regiões; country: o país/os países
population: a população/as populações; population (millions): a população (em milhões)
area: a área/as áreas; currency: a moeda/as moedas
currency code: o código da moeda/os códigos da moeda
currency name: o nome da moeda/os nomes da moeda; language: o idioma/os idiomas
name: o nome/os nomes; code: o código/os códigos; symbol: o símbolo/os símbolos
category: a categoria/as categorias; group: o grupo/os grupos; type: o tipo/os tipos
species: a espécie/as espécies; year: o ano/os anos; price: o preço/os preços
planet: o planeta/os planetas; element: o elemento/os elementos; city: a cidade/as cidades
state: o estado/os estados; fruit: a fruta/as frutas; animal: o animal/os animais
film: o filme/os filmes; book: o livro/os livros; river: o rio/os rios
mountain: a montanha/as montanhas; gadget: o aparelho/os aparelhos
length: o comprimento/os comprimentos; length (km): o comprimento (em km)
height: a altura/as alturas; mass: a massa/as massas
atomic mass: a massa atômica/as massas atômicas
atomic number: o número atômico/os números atômicos; weight: o peso/os pesos
color: a cor/as cores; department: o departamento/os departamentos; role: o cargo/os cargos
manager: o gerente/os gerentes; director: o diretor/os diretores; author: o autor/os autores
date: a data/as datas; iso3: o código ISO de três letras/os códigos ISO de três letras
museum: o museu/os museus; bridge: a ponte/as pontes; lake: o lago/os lagos
island: a ilha/as ilhas; building: o edifício/os edifícios; compound: o composto/os compostos
mission: a missão/as missões; console: o console/os consoles; event: a prova/as provas
athlete: o atleta/os atletas; team: a equipe/as equipes; company: a empresa/as empresas
university: a universidade/as universidades; airport: o aeroporto/os aeroportos
volcano: o vulcão/os vulcões; ocean: o oceano/os oceanos; sea: o mar/os mares
desert: o deserto/os desertos; painting: o quadro/os quadros; painter: o pintor/os pintores
composer: o compositor/os compositores; song: a canção/as canções
album: o álbum/os álbuns; dish: o prato/os pratos
dog breed: a raça de cachorro/as raças de cachorro; breed: a raça/as raças
bird: a ave/as aves; penguin: o pinguim/os pinguins; tree: a árvore/as árvores
plant: a planta/as plantas; vegetable: o legume/os legumes
instrument: o instrumento/os instrumentos; sport: o esporte/os esportes
game: o jogo/os jogos
programming language: a linguagem de programação/as linguagens de programação
founded: o ano de fundação/os anos de fundação
first appeared: o ano de surgimento/os anos de surgimento
year discovered: o ano de descoberta/os anos de descoberta
released: o ano de lançamento/os anos de lançamento
published: o ano de publicação/os anos de publicação
completed: o ano de conclusão/os anos de conclusão
built: o ano de construção/os anos de construção
opened: o ano de inauguração/os anos de inauguração
size: o tamanho/os tamanhos; age: a idade/as idades; speed: a velocidade/as velocidades
time: o tempo/os tempos; depth: a profundidade/as profundidades
width: a largura/as larguras; elevation: a altitude/as altitudes
capacity: a capacidade/as capacidades; distance: a distância/as distâncias
temperature: a temperatura/as temperaturas; title: o título/os títulos
wind: o vento/os ventos; precipitation: a precipitação/as precipitações
rainfall: a pluviosidade/as pluviosidades; humidity: a umidade/as umidades
weather: o tempo/os tempos; driver: o piloto/os pilotos
season: a temporada/as temporadas; champion: o campeão/os campeões
winner: o vencedor/os vencedores; runner-up: o vice-campeão/os vice-campeões
loser: o perdedor/os perdedores; host: o anfitrião/os anfitriões
host country: o país-sede/os países-sede; host city: a cidade-sede/as cidades-sede
sample: a amostra/as amostras; wine: o vinho/os vinhos; record: o recorde/os recordes
holder: o detentor/os detentores; constructor: a escuderia/as escuderias
win: a vitória/as vitórias; race: a corrida/as corridas; moon: a lua/as luas
goal: o gol/os gols; match: a partida/as partidas; final: a final/as finais
tournament: o torneio/os torneios; player: o jogador/os jogadores; club: o clube/os clubes
coach: o treinador/os treinadores; birth: o nascimento/os nascimentos
death: o falecimento/os falecimentos; release: o lançamento/os lançamentos
publication: a publicação/as publicações; launch: o lançamento/os lançamentos
foundation: a fundação/as fundações; nationality: a nacionalidade/as nacionalidades
sex: o sexo/os sexos; gender: o gênero/os gêneros; body: o corpo/os corpos
bill: o bico/os bicos; flipper: a nadadeira/as nadadeiras
diagnosis: o diagnóstico/os diagnósticos; radius: o raio/os raios
diameter: o diâmetro/os diâmetros; perimeter: o perímetro/os perímetros
volume: o volume/os volumes; density: a densidade/as densidades
texture: a textura/as texturas; concentration: a concentração/as concentrações
acidity: a acidez; alcohol: o teor alcoólico/os teores alcoólicos; magnesium: o magnésio
intensity: a intensidade/as intensidades; hue: a tonalidade/as tonalidades
class: a classe/as classes; label: o rótulo/os rótulos; variety: a variedade/as variedades
origin: a origem/as origens; brand: a marca/as marcas; model: o modelo/os modelos
manufacturer: o fabricante/os fabricantes; developer: o desenvolvedor/os desenvolvedores
publisher: a editora/as editoras; genre: o gênero/os gêneros; actor: o ator/os atores
singer: o cantor/os cantores; artist: o artista/os artistas; writer: o escritor/os escritores
gdp: o PIB; income: a renda/as rendas; salary: o salário/os salários
cost: o custo/os custos; employee: o funcionário/os funcionários
duration: a duração/as durações; runtime: a duração/as durações
score: a pontuação/as pontuações; rank: a posição/as posições; point: o ponto/os pontos
medal: a medalha/as medalhas; venue: o local/os locais; edition: a edição/as edições
month: o mês/os meses; day: o dia/os dias; century: o século/os séculos
extension: a extensão/as extensões; file: o arquivo/os arquivos
paradigm: o paradigma/os paradigmas; creator: o criador/os criadores
inventor: o inventor/os inventores; discoverer: o descobridor/os descobridores
agency: a agência/as agências; crew: a tripulação/as tripulações
rocket: o foguete/os foguetes; spacecraft: a nave espacial/as naves espaciais
destination: o destino/os destinos; orbit: a órbita/as órbitas; star: a estrela/as estrelas
galaxy: a galáxia/as galáxias; satellite: o satélite/os satélites
confederation: a confederação/as confederações; federation: a federação/as federações
league: a liga/as ligas; stadium: o estádio/os estádios; peak: o pico/os picos
prominence: a proeminência/as proeminências; ascent: a ascensão/as ascensões
climate: o clima/os climas; family: a família/as famílias; order: a ordem/as ordens
genus: o gênero/os gêneros; habitat: o habitat/os habitats
lifespan: a expectativa de vida/as expectativas de vida
wingspan: a envergadura/as envergaduras; formula: a fórmula/as fórmulas
boiling: a ebulição; melting: a fusão; phase: a fase/as fases
collection: a coleção/as coleções; novel: o romance/os romances
poem: o poema/os poemas; band: a banda/as bandas; opera: a ópera/as óperas
premiere: a estreia/as estreias; tower: a torre/as torres; span: o vão/os vãos
architect: o arquiteto/os arquitetos; floor: o andar/os andares
platform: a plataforma/as plataformas; founder: o fundador/os fundadores
headquarters: a sede/as sedes; industry: o setor/os setores; nation: a nação/as nações
person: a pessoa/as pessoas; student: o aluno/os alunos; school: a escola/as escolas
hospital: o hospital/os hospitais; patient: o paciente/os pacientes
tumor: o tumor/os tumores; cell: a célula/as células; measurement: a medição/as medições
unit: a unidade/as unidades; value: o valor/os valores; number: o número/os números
id: o identificador/os identificadores; thickness: a espessura/as espessuras
energy: a energia/as energias; power: a potência/as potências
voltage: a tensão/as tensões; frequency: a frequência/as frequências
pressure: a pressão/as pressões; salt: o sal/os sais; water: a água/as águas
acid: o ácido/os ácidos; malic acid: o ácido málico; citric acid: o ácido cítrico
flavonoids: o teor de flavonoides; range: a cordilheira/as cordilheiras
proline: a prolina; sugar: o açúcar/os açúcares; protein: a proteína/as proteínas
car: o carro/os carros; vehicle: o veículo/os veículos; engine: o motor/os motores
fuel: o combustível/os combustíveis; cylinder: o cilindro/os cilindros
displacement: a cilindrada/as cilindradas; horsepower: a potência (cv)
acceleration: a aceleração/as acelerações; miles per gallon: o consumo (milhas por galão)
body mass: a massa corporal; bill length: o comprimento do bico
bill depth: a profundidade do bico; flipper length: o comprimento da nadadeira
wind speed: a velocidade do vento/as velocidades do vento
"""
