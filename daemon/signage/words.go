package signage

// words are a sign's fixed texts in one language.
type words struct {
	Step1, Network, Password, OpenNetwork string
	Step2, Scan, Code, Line, Place        string
}

// lexicon holds the signs' languages; English is the fallback.
var lexicon = map[string]words{
	"en": {Step1: "Join the Wi-Fi", Network: "Network", Password: "Password", OpenNetwork: "No password",
		Step2: "Scan to share your photos", Scan: "or open", Code: "Access code", Line: "Share your photos and videos of the day!", Place: "Taken here"},
	"fr": {Step1: "Rejoignez le Wi-Fi", Network: "Réseau", Password: "Mot de passe", OpenNetwork: "Sans mot de passe",
		Step2: "Scannez pour partager vos photos", Scan: "ou ouvrez", Code: "Code d’accès", Line: "Partagez vos photos et vidéos de la journée !", Place: "Prises ici"},
	"it": {Step1: "Collegati al Wi-Fi", Network: "Rete", Password: "Password", OpenNetwork: "Senza password",
		Step2: "Inquadra per condividere le foto", Scan: "oppure apri", Code: "Codice di accesso", Line: "Condividi le tue foto e i video della giornata!", Place: "Scattate qui"},
	"es": {Step1: "Conéctate al Wi-Fi", Network: "Red", Password: "Contraseña", OpenNetwork: "Sin contraseña",
		Step2: "Escanea para compartir tus fotos", Scan: "o abre", Code: "Código de acceso", Line: "¡Comparte tus fotos y vídeos del día!", Place: "Hechas aquí"},
}

func wordsFor(lang string) words {
	if w, ok := lexicon[lang]; ok {
		return w
	}
	return lexicon["en"]
}
